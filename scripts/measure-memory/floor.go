package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"sandview/crypto"
)

// floorSignatures is how many signatures signatureCPU makes: hedged
// ML-DSA-65 signing repeats a random number of rounds, so the mean of a
// thousand is stable to a few percent.
const floorSignatures = 1000

// signatureCPU is the CPU time one ML-DSA-65 signature of a payload of a
// test mail's size takes on this machine, measured on this process's own
// thread while the server is idle: an encrypted mail's floor is three of
// them (its metadata, parsed and raw payloads).
func signatureCPU() (time.Duration, error) {
	keys, err := crypto.GenerateKeyPair()
	if err != nil {
		return 0, fmt.Errorf("key pair: %w", err)
	}
	key, err := crypto.GenerateSigningKey()
	if err != nil {
		return 0, fmt.Errorf("signing key: %w", err)
	}
	sealer, err := crypto.NewSealer(keys.PublicKey, key, "")
	if err != nil {
		return 0, fmt.Errorf("sealer: %w", err)
	}
	env, err := sealer.NewEnvelope()
	if err != nil {
		return 0, fmt.Errorf("envelope: %w", err)
	}
	defer env.Close()
	payload, err := env.Encrypt(bytes.Repeat([]byte("x"), 3000), []byte("measure:parsed"), false)
	if err != nil {
		return 0, fmt.Errorf("encrypt: %w", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, err := threadCPU()
	if err != nil {
		return 0, err
	}
	for range floorSignatures {
		if err := sealer.SignInPlace(payload, env.CtKem()); err != nil {
			return 0, fmt.Errorf("sign: %w", err)
		}
	}
	end, err := threadCPU()
	if err != nil {
		return 0, err
	}
	return (end - start) / floorSignatures, nil
}

// threadCPU is the time the calling thread has run
// (/proc/thread-self/schedstat).
func threadCPU() (time.Duration, error) {
	data, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0, fmt.Errorf("thread CPU time: %w", err)
	}
	ns, err := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("thread CPU time: %w", err)
	}
	return time.Duration(ns), nil
}
