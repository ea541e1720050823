//go:build amd64 && !purego

package crypto

import "golang.org/x/sys/cpu"

// vzeroupper executes VZEROUPPER. It must only run on CPUs with AVX.
func vzeroupper()

// cleanVectorState must follow every call into circl's ML-KEM and ML-DSA
// code. That code uses AVX2 and returns without VZEROUPPER, leaving the
// upper halves of the YMM registers dirty; legacy-SSE code run afterwards on
// the same thread pays a transition penalty. On the reference machine
// (virtualised AMD EPYC) the SHA-NI SHA-256 of the 1088-byte ct_kem took
// about 90 µs instead of 1.5 µs, doubling the cost of Open. The penalty hits
// any later SSE code, including the caller's, so every circl call is fenced.
func cleanVectorState() {
	if cpu.X86.HasAVX {
		vzeroupper()
	}
}
