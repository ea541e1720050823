package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"sandview/server"
	"sandview/server/servertest"
)

// BenchmarkHoldEncryptedMails measures the memory of a server holding
// 10,000 encrypted mails (every payload signed), then listing them with
// content three times, as a TUI does; in memory and with a data
// directory. It reports, in MB: the live heap and the RSS once the mails
// are held (after a GC, free pages returned), the peak RSS while they
// arrived, the peak RSS over the three listings, and the RSS after them.
// Each run starts from a returned heap, so -count>1 runs measure the same
// thing.
func BenchmarkHoldEncryptedMails(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchHold(b) })
	b.Run("durable", func(b *testing.B) {
		benchHold(b, func(cfg *server.Config) { cfg.DataDir = b.TempDir() })
	})
}

func benchHold(b *testing.B, opts ...func(*server.Config)) {
	const total = 10000
	opts = append(opts, func(cfg *server.Config) { cfg.MaxEmailsPerInbox = total })
	for b.Loop() {
		settleMemory()
		resetPeakRSS(b)
		srv, a := servertest.StartAPI(b, opts...)
		in := a.CreateEncrypted(nil)
		fill(b, srv, in.EmailAddress, total)
		if err := srv.WaitForSignatures(context.Background()); err != nil {
			b.Fatal(err)
		}
		ingestPeak := procStatusMB(b, "VmHWM")
		heap := settleMemory()
		held := procStatusMB(b, "VmRSS")
		resetPeakRSS(b)
		for range 3 {
			listAll(b, srv, in.EmailAddress, total)
		}
		listPeak := procStatusMB(b, "VmHWM")
		settleMemory()
		after := procStatusMB(b, "VmRSS")

		b.ReportMetric(heap, "heap-MB")
		b.ReportMetric(held, "rss-MB")
		b.ReportMetric(ingestPeak, "ingest-peak-rss-MB")
		b.ReportMetric(listPeak, "list-peak-rss-MB")
		b.ReportMetric(after, "rss-after-lists-MB")
		srv.Close()
	}
}

// listAll lists an inbox with content and checks it holds want emails,
// reading the body without keeping it.
func listAll(b *testing.B, srv *server.Server, address string, want int) {
	req, err := http.NewRequest("GET", srv.URL()+"/api/inboxes/"+address+"/emails?includeContent=true", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("X-API-Key", srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	counter := &patternCounter{pattern: []byte(`"encryptedParsed":`)}
	if _, err := io.Copy(counter, resp.Body); err != nil {
		b.Fatal(err)
	}
	records := counter.count
	if resp.StatusCode != http.StatusOK || records != want {
		b.Fatalf("list: status %d, %d records with content, want %d", resp.StatusCode, records, want)
	}
}

// patternCounter counts the occurrences of a pattern in what is written
// to it, also across writes.
type patternCounter struct {
	pattern []byte
	tail    []byte // the last len(pattern)-1 bytes seen
	count   int
}

func (c *patternCounter) Write(p []byte) (int, error) {
	joined := append(c.tail, p[:min(len(p), len(c.pattern)-1)]...)
	c.count += bytes.Count(joined, c.pattern) + bytes.Count(p, c.pattern)
	keep := len(c.pattern) - 1
	if len(p) >= keep {
		c.tail = append(c.tail[:0], p[len(p)-keep:]...)
	} else {
		c.tail = append(c.tail, p...)
		c.tail = c.tail[max(0, len(c.tail)-keep):]
	}
	return len(p), nil
}

// settleMemory collects garbage and returns free pages to the OS; it
// returns the live heap in MB.
func settleMemory() float64 {
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// resetPeakRSS restarts the process's peak RSS (VmHWM) from its current RSS.
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS on this system: %v", err)
	}
}

// procStatusMB reads a kB field of /proc/self/status in MB.
func procStatusMB(b *testing.B, field string) float64 {
	return procFileMB(b, "/proc/self/status", field)
}

// procFileMB reads a kB field of a /proc status file in MB.
func procFileMB(b *testing.B, path, field string) float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for line := range bytes.Lines(data) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || string(name) != field {
			continue
		}
		kb, err := strconv.ParseFloat(string(bytes.TrimSuffix(bytes.TrimSpace(value), []byte(" kB"))), 64)
		if err != nil {
			b.Fatal(err)
		}
		return kb / 1024
	}
	b.Fatalf("no %s in %s", field, path)
	return 0
}
