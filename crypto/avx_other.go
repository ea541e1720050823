//go:build !amd64 || purego

package crypto

// cleanVectorState is a no-op where circl runs no AVX2 code; see the amd64
// version.
func cleanVectorState() {}
