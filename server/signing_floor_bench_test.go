package server_test

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/server"
)

// signaturesPerMail is how many ML-DSA-65 signatures an encrypted mail
// costs: its metadata, parsed and raw payloads.
const signaturesPerMail = 3

// floorSignatures is how many signatures signingFloor makes on each CPU:
// hedged ML-DSA-65 signing repeats a random number of rounds, so the mean
// of a few hundred is stable to a few percent.
const floorSignatures = 200

// signingFloor is the most encrypted mails a second this process could
// store if it did nothing but sign them, and the CPU time a signature
// takes: GOMAXPROCS goroutines sign a payload of a mail's size in a loop,
// and the floor is GOMAXPROCS / (signaturesPerMail × the time a signature
// took). It runs in the benchmark's own process, under the machine's load
// of the moment, so that a rate divided by it compares with the same CPUs.
func signingFloor(b *testing.B) (mailsPerSecond float64, cpuPerSignature time.Duration) {
	keys, err := crypto.GenerateKeyPair()
	if err != nil {
		b.Fatal(err)
	}
	key, err := crypto.GenerateSigningKey()
	if err != nil {
		b.Fatal(err)
	}
	sealer, err := crypto.NewSealer(keys.PublicKey, key, "")
	if err != nil {
		b.Fatal(err)
	}
	env, err := sealer.NewEnvelope()
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	// About the parsed payload of benchMessage.
	unsigned, err := env.Encrypt(bytes.Repeat([]byte("x"), 3000), []byte("bench:parsed"), false)
	if err != nil {
		b.Fatal(err)
	}
	procs := runtime.GOMAXPROCS(0)
	payloads := make([]crypto.Sealed, procs) // signed where they lie: no garbage for the collector
	for i := range payloads {
		payloads[i] = slices.Clone(unsigned)
	}
	var wg sync.WaitGroup
	cpuStart := processCPU(b)
	start := time.Now()
	for _, p := range payloads {
		wg.Go(func() {
			for range floorSignatures {
				if err := sealer.SignInPlace(p, env.CtKem()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	perSignature := time.Since(start).Seconds() / floorSignatures
	cpuPerSignature = (processCPU(b) - cpuStart) / time.Duration(procs*floorSignatures)
	return float64(procs) / (signaturesPerMail * perSignature), cpuPerSignature
}

// floorMetrics reports, for mails signed at signedRate (mails a second
// until the last payload is signed) costing cpuPerMail each, the signing
// floor (floor-msg/s, the mean of signingFloor before and after, given
// as before) and the rate in percent of it (signed-%-floor); and, as the
// machine's other load shifts rates more than CPU times, the signatures'
// share of a mail's CPU time (cpu-%-floor: the same ratio on CPUs of its
// own).
func floorMetrics(b *testing.B, before, after float64, cpuPerSignature, cpuPerMail time.Duration, signedRate float64) {
	floor := (before + after) / 2
	b.ReportMetric(floor, "floor-msg/s")
	b.ReportMetric(100*signedRate/floor, "signed-%-floor")
	b.ReportMetric(100*float64(signaturesPerMail*cpuPerSignature)/float64(cpuPerMail), "cpu-%-floor")
}

// withServeMemoryPolicy runs the benchmark's process, server and client,
// at the soft memory limit and GC percent `sandview serve` sets by
// default, and restores the runtime's own when the benchmark ends.
func withServeMemoryPolicy(b *testing.B) {
	limit := debug.SetMemoryLimit(server.DefaultMemoryLimit)
	percent := debug.SetGCPercent(server.DefaultGCPercent)
	b.Cleanup(func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	})
}
