package server_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sandview/server/dnsresolve/dnstest"
	"sandview/server/servertest"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStartFresh execs a real `sandview serve --data` (built for the
// benchmark; SANDVIEW_BENCH_BINARY names another build to compare) on a
// fresh data directory and random loopback ports, and times it from exec
// to ready: the banner's SMTP line, which is printed once both listeners
// accept connections and the store, signing key and webhook store are
// open. It reports the median (ms/start); with strace on the PATH it also
// reports the fsync and fdatasync calls of one fresh start (fsyncs).
// Target: 60 ms, of which the binary's package initialisation takes about
// 36 ms here.
func BenchmarkStartFresh(b *testing.B) {
	bin := benchBinary(b)
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		times = append(times, startFresh(b, bin))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/start")
	b.ReportMetric(0, "ns/op")
	if strace, err := exec.LookPath("strace"); err == nil {
		trace := filepath.Join(b.TempDir(), "strace")
		startFresh(b, strace, "-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", trace, bin)
		data, err := os.ReadFile(trace)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(strings.Count(string(data), "sync(")), "fsyncs")
	}
}

// startFresh runs `serve` (the command before it given by name and args)
// on a fresh data directory until it prints its SMTP address, stops it
// and returns the time to that line.
func startFresh(b *testing.B, name string, args ...string) time.Duration {
	dir := b.TempDir()
	dns := dnstest.Start(b, dnstest.Options{}) // the checks ask nothing beyond loopback
	args = append(args, "serve", "--data", filepath.Join(dir, "data"), "--home", filepath.Join(dir, "home"),
		"--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--api-key", "bench-key", "--log-level", "error", "--dns", dns.Addr)
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "SANDVIEW_HOME=")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	_, err = servertest.ReadBanner(stdout)
	took := time.Since(start)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.Fatal(err)
	}
	// Under strace the server is strace's child, which strace does not
	// pass SIGINT to.
	pid := cmd.Process.Pid
	if children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)); err == nil && len(strings.Fields(string(children))) > 0 {
		pid, _ = strconv.Atoi(strings.Fields(string(children))[0])
	}
	_ = syscall.Kill(pid, syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("sandview serve: %v", err)
	}
	return took
}
