package main

// The measured process, read from /proc: its CPU time and memory.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// waitIdle waits until the process has used under 20 ms of CPU in a
// second, twice in a row: the background signer is done.
func waitIdle(pid int) error {
	deadline := time.Now().Add(10 * time.Minute)
	last, err := cpuTime(pid)
	if err != nil {
		return err
	}
	quiet := 0
	for quiet < 2 {
		if time.Now().After(deadline) {
			return errors.New("the server did not go idle")
		}
		time.Sleep(time.Second)
		now, err := cpuTime(pid)
		if err != nil {
			return err
		}
		if now-last < 20*time.Millisecond {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
	return nil
}

// waitSettled polls the RSS every second until it has not fallen by more
// than 1 MB over 10 s, or max has passed, and returns it.
func waitSettled(pid int, max time.Duration) (float64, error) {
	deadline := time.Now().Add(max)
	var history []float64
	for {
		rss, err := statusMB(pid, "VmRSS")
		if err != nil {
			return 0, err
		}
		history = append(history, rss)
		if n := len(history); n > 10 && history[n-11]-rss < 1 || time.Now().After(deadline) {
			return rss, nil
		}
		time.Sleep(time.Second)
	}
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("CPU time: %w", err)
	}
	// The fields after the command's name, which ends with the last ')'.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 13 {
		return 0, errors.New("CPU time: short /proc stat")
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime, stime
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("CPU time: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100), nil // USER_HZ is 100 on Linux
}

// statusMB reads a kB field of /proc/PID/status in MB.
func statusMB(pid int, field string) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", field, err)
	}
	for line := range strings.Lines(string(data)) {
		name, value, ok := strings.Cut(line, ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", field, err)
		}
		return kb / 1024, nil
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
