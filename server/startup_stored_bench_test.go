package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/dnsresolve/dnstest"
	"sandview/server/emailauth"
	"sandview/server/servertest"
)

// startCatchAll is the catch-all address of the start-up benchmark.
const startCatchAll = "qa@sandbox.test"

// BenchmarkStartStored execs a real `sandview serve --data DIR
// --catch-all qa@sandbox.test` (built for the benchmark;
// SANDVIEW_BENCH_BINARY names another build) on data directories holding
// 0, 10,000 and 100,000 stored mails (small plain mails, at most 5,000
// an inbox: within the default limits), one start of each in turn per
// round, and times each from exec until the catch-all's
// GET /api/inboxes/{address}/sync answers 200. It reports the median of
// each (ms/start-N) and how the largest compares with none
// (ratio-100k); it fails when 100,000 stored mails take more than 1.5×
// the start with none: a start must not walk what the store holds.
// Filling the directories (over SMTP, outside the timer) takes a minute
// or two; run it with -benchtime 5x or more.
func BenchmarkStartStored(b *testing.B) {
	const limit = 1.5
	sizes := []int{0, 10_000, 100_000}
	bin := benchBinary(b)
	dirs := make([]string, len(sizes))
	for i, n := range sizes {
		dirs[i] = filepath.Join(b.TempDir(), "data")
		fillDataDir(b, dirs[i], n)
	}
	times := make([][]time.Duration, len(sizes))
	for b.Loop() {
		for i, dir := range dirs {
			times[i] = append(times[i], startToSync(b, bin, dir))
		}
	}
	medians := make([]float64, len(sizes))
	for i, n := range sizes {
		slices.Sort(times[i])
		medians[i] = float64(times[i][len(times[i])/2].Microseconds()) / 1000
		b.ReportMetric(medians[i], fmt.Sprintf("ms/start-%d", n))
	}
	ratio := medians[len(sizes)-1] / medians[0]
	b.Logf("median ms from exec to the catch-all's sync, by stored mails %v: %v", sizes, medians)
	b.ReportMetric(ratio, "ratio-100k")
	b.ReportMetric(0, "ns/op")
	if ratio > limit {
		b.Fatalf("a start over %d stored mails takes %.1f ms, %.2f× the %.1f ms of an empty one (limit %.1f×)",
			sizes[len(sizes)-1], medians[len(sizes)-1], ratio, medians[0], limit)
	}
}

// fillDataDir stores n small plain mails in a new data directory, in
// inboxes of at most 5,000, through an in-process server on it (SMTP on
// loopback), which it closes.
func fillDataDir(b *testing.B, dir string, n int) {
	const perInbox = 5000
	cfg := loopbackConfig(dir)
	cfg.CatchAll = startCatchAll
	srv, err := server.Start(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	a := servertest.NewClient(b, srv)
	for left := n; left > 0; left -= perInbox {
		in := a.CreatePlain(map[string]any{"emailAuth": false})
		fill(b, srv, in.EmailAddress, min(left, perInbox))
	}
	if err := srv.Close(); err != nil {
		b.Fatal(err)
	}
}

// startToSync runs `sandview serve` on the data directory, asks the
// catch-all's sync status until it answers 200, stops the server
// (SIGINT) and returns the time from exec to the answer.
func startToSync(b *testing.B, bin, dir string) time.Duration {
	home := b.TempDir()
	dns := dnstest.Start(b, dnstest.Options{}) // the checks ask nothing beyond loopback
	cmd := exec.Command(bin, "serve", "--data", dir, "--home", home, "--catch-all", startCatchAll,
		"--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--api-key", servertest.APIKey, "--log-level", "error", "--dns", dns.Addr)
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
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			b.Errorf("sandview serve: %v", err)
		}
	}
	banner, err := servertest.ReadBanner(stdout)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.Fatal(err)
	}
	url := banner.API
	req, err := http.NewRequest("GET", url+"/api/inboxes/"+startCatchAll+"/sync", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("X-API-Key", servertest.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		stop()
		b.Fatalf("sync: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	stop()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("sync: status %d", resp.StatusCode)
	}
	return took
}

// loopbackConfig is a server on random loopback ports and the data
// directory, with servertest's API key and a resolver that answers every
// sender check at once.
func loopbackConfig(dir string) server.Config {
	var cfg server.Config
	cfg.HTTPAddr, cfg.SMTPAddr = "127.0.0.1:0", "127.0.0.1:0"
	cfg.APIKey = servertest.APIKey
	cfg.Resolver = &emailauth.StaticResolver{}
	cfg.DataDir = dir
	return cfg
}
