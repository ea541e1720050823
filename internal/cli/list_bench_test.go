//go:build linux

package cli

// The memory and time of `sandview email list` on a big inbox: the real
// binary against the embedded server holding 10,000 encrypted mails with
// content.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/servertest"
)

// BenchmarkEmailList10000 runs `sandview email list` (JSON and table) on
// 10,000 encrypted mails with about 4 KB of text and HTML each, and
// reports the process's peak RSS (max-rss-MB: VmHWM of /proc/PID/status,
// read every few milliseconds; rusage would report this big process's
// RSS, which the child inherits until exec) and its peak heap
// (peak-heap-MB: the largest heap any GC saw, from gctrace).
func BenchmarkEmailList10000(b *testing.B) {
	const total = 10000
	srv := servertest.Start(b, func(c *server.Config) {
		c.MaxEmailsPerInbox = 2 * total
		c.MaxStoreBytes = 4 << 30
	})
	home := b.TempDir()
	base := []string{"--home", home, "--url", srv.URL(), "--api-key", servertest.APIKey}
	out, err := exec.Command(builtBinary, append(base, "inbox", "create", "--encrypted", "--no-auth", "--json")...).Output()
	if err != nil {
		b.Fatalf("inbox create: %v", err)
	}
	var inbox inboxView
	if err := json.Unmarshal(out, &inbox); err != nil {
		b.Fatal(err)
	}
	seedMails(b, srv.SMTPAddr(), inbox.EmailAddress, total)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := srv.WaitForSignatures(ctx); err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"json", "table"} {
		b.Run(format, func(b *testing.B) {
			args := append(base, "email", "list")
			if format == "json" {
				args = append(args, "--json")
			}
			var rss, heap float64
			for b.Loop() {
				r, h := runMeasured(b, args, format, total)
				rss, heap = max(rss, r), max(heap, h)
			}
			b.ReportMetric(rss, "max-rss-MB")
			b.ReportMetric(heap, "peak-heap-MB")
		})
	}
}

// gcHeap matches the heap sizes of a gctrace line ("12->14->3 MB").
var gcHeap = regexp.MustCompile(`(\d+)->(\d+)->\d+ MB`)

// runMeasured runs the binary once and returns its peak RSS and peak heap
// in MB, checking that it listed every email.
func runMeasured(b *testing.B, args []string, format string, total int) (rssMB, heapMB float64) {
	cmd := exec.Command(builtBinary, args...)
	cmd.Env = append(cmd.Environ(), "GODEBUG=gctrace=1")
	var stdout lineCounter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	peak := make(chan float64)
	go func() { peak <- watchHWM(cmd.Process.Pid, done) }()
	err := cmd.Wait()
	close(done)
	rssMB = <-peak
	if err != nil {
		b.Fatalf("email list: %v\n%s", err, lastLines(stderr.String(), 5))
	}
	// JSON: "[", one "  {" line per email, "]"; table: header and rows.
	if want := total + 1; (format == "table" && stdout.lines != want) || (format == "json" && stdout.objects != total) {
		b.Fatalf("%s listed %d lines, %d objects for %d emails", format, stdout.lines, stdout.objects, total)
	}
	for _, m := range gcHeap.FindAllStringSubmatch(stderr.String(), -1) {
		for _, n := range m[1:3] {
			v, _ := strconv.ParseFloat(n, 64)
			heapMB = max(heapMB, v)
		}
	}
	return rssMB, heapMB
}

// watchHWM reads the peak RSS (VmHWM) of a process every 2 ms until done
// is closed and returns the largest value seen, in MB.
func watchHWM(pid int, done <-chan struct{}) float64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var peakKB float64
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if data, err := os.ReadFile(path); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
					peakKB = max(peakKB, kb)
				}
			}
		}
		select {
		case <-done:
			return peakKB / 1024
		case <-tick.C:
		}
	}
}

// lineCounter counts the lines written to it and the lines that open a
// top-level object of an indented JSON array.
type lineCounter struct {
	lines, objects int
	prefix         []byte // the start of the current line
}

func (c *lineCounter) Write(p []byte) (int, error) {
	for _, ch := range p {
		if ch == '\n' {
			c.lines++
			if string(c.prefix) == "  {" {
				c.objects++
			}
			c.prefix = c.prefix[:0]
			continue
		}
		if len(c.prefix) < 3 {
			c.prefix = append(c.prefix, ch)
		}
	}
	return len(p), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// seedMails sends n mails to one address over a few SMTP connections.
func seedMails(b *testing.B, addr, to string, n int) {
	b.Helper()
	body := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 30)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			c, err := smtp.Dial(addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Quit()
			for k := next.Add(1); k <= int64(n); k = next.Add(1) {
				msg := fmt.Sprintf("From: bench@example.org\r\nTo: %s\r\nSubject: Message %d\r\nMIME-Version: 1.0\r\n"+
					"Content-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n%s\r\n"+
					"--b\r\nContent-Type: text/html\r\n\r\n<p>%s <a href=\"https://example.org/x\">x</a></p>\r\n--b--\r\n", to, k, body, body)
				if err := smtpsend.SendOn(c, "bench@example.org", []string{to}, []byte(msg)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}
