package server_test

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/crypto"
)

// signaturesPerMail is how many ML-DSA-65 signatures an encrypted mail
// costs: its metadata, parsed and raw payloads.
const signaturesPerMail = 3

// floorSignatures is how many signatures signingFloor makes on each CPU:
// hedged ML-DSA-65 signing repeats a random number of rounds, so the mean
// of a thousand is stable to a few percent.
const floorSignatures = 500

// signingFloor is the most encrypted mails a second this process could
// store if it did nothing but sign them, and the CPU time a signature
// takes: GOMAXPROCS goroutines sign a payload of a mail's size in a loop,
// and the floor is GOMAXPROCS / (signaturesPerMail × the time a signature
// took). It runs in the benchmark's own process, under the machine's load
// of the moment, so that a rate divided by it compares with the same CPUs.
// The CPU time is each signing thread's own (threadCPU), so that the
// collector, busy on other threads with the heap the server holds, does
// not count.
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
	cpu := make([]time.Duration, procs)
	var wg sync.WaitGroup
	start := time.Now()
	for i, p := range payloads {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			before := threadCPU(b)
			for range floorSignatures {
				if err := sealer.SignInPlace(p, env.CtKem()); err != nil {
					b.Error(err)
					return
				}
			}
			cpu[i] = threadCPU(b) - before
		})
	}
	wg.Wait()
	perSignature := time.Since(start).Seconds() / floorSignatures
	var total time.Duration
	for _, d := range cpu {
		total += d
	}
	return float64(procs) / (signaturesPerMail * perSignature), total / time.Duration(procs*floorSignatures)
}

// threadCPU is the time the calling thread has run, from
// /proc/thread-self/schedstat (Linux).
func threadCPU(b *testing.B) time.Duration {
	data, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		b.Skipf("no thread CPU time: %v", err)
	}
	ns, err := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return time.Duration(ns)
}

// floorMetrics reports, for mails signed at signedRate (mails a second
// until the last payload is signed) costing cpuPerMail each (the whole
// process's CPU time), the signing floor (floor-msg/s, the mean of
// signingFloor before and after, given as before; after, the collector
// may be busy with the heap the server holds) and the rate in percent of
// it (signed-%-floor); and, as the machine's other load shifts rates more
// than CPU times, the signatures' share of a mail's CPU time (cpu-%-floor:
// the same ratio on CPUs of its own).
func floorMetrics(b *testing.B, before, after float64, cpuPerSignature, cpuPerMail time.Duration, signedRate float64) {
	floor := (before + after) / 2
	b.ReportMetric(floor, "floor-msg/s")
	b.ReportMetric(100*signedRate/floor, "signed-%-floor")
	b.ReportMetric(100*float64(signaturesPerMail*cpuPerSignature)/float64(cpuPerMail), "cpu-%-floor")
}
