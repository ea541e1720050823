package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/emersion/go-smtp"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
	"sandview/tui/feed"
)

// The burst of BenchmarkBurstLocalVsHeadless: burstMails encrypted mails
// over burstConns SMTP connections.
const (
	burstMails = 2000
	burstConns = 8
)

// BenchmarkBurstLocalVsHeadless is the "burst on screen" target of
// sandview --local: one op is a pair of bursts of burstMails encrypted
// mails over burstConns SMTP connections into a fresh embedded server,
// the same checks and DNS each time: first with nothing watching the
// inbox (the headless server), then with the real program open on it
// (the client watching the event stream, the feed, the screen drawing
// frames into a pipe at 200x50). It reports the medians of the pairs:
// headless-msg/s and local-msg/s (SMTP rates, first send to last 250),
// local-% (local over headless, the target is at least 80), shown-msg/s
// (until the program was handed the last mail) and the process's CPU per
// mail of each (cpu-µs/mail: server, client and program together; until
// the last 250, and signed-cpu-µs/mail until the server made the last
// deferred signature, which the headless server makes after the burst).
// "listed=10000": the inbox holds 10,000 mails (signed, and listed by the
// program) before the burst; the CPU per mail should not grow with them.
func BenchmarkBurstLocalVsHeadless(b *testing.B) {
	for _, listed := range []int{0, 10000} {
		b.Run(fmt.Sprintf("listed=%d", listed), func(b *testing.B) { benchBurstLocalVsHeadless(b, listed) })
	}
}

func benchBurstLocalVsHeadless(b *testing.B, listed int) {
	var headless, local, ratio, shown, cpuHeadless, cpuLocal, signedHeadless, signedLocal []float64
	for b.Loop() {
		h := runBurst(b, false, listed)
		l := runBurst(b, true, listed)
		headless, local = append(headless, h.rate), append(local, l.rate)
		ratio = append(ratio, 100*l.rate/h.rate)
		shown = append(shown, l.shownRate)
		cpuHeadless, cpuLocal = append(cpuHeadless, h.cpuPerMail), append(cpuLocal, l.cpuPerMail)
		signedHeadless, signedLocal = append(signedHeadless, h.cpuSigned), append(signedLocal, l.cpuSigned)
	}
	b.ReportMetric(median(headless), "headless-msg/s")
	b.ReportMetric(median(local), "local-msg/s")
	b.ReportMetric(median(ratio), "local-%")
	b.ReportMetric(median(shown), "shown-msg/s")
	b.ReportMetric(median(cpuHeadless), "headless-cpu-µs/mail")
	b.ReportMetric(median(cpuLocal), "local-cpu-µs/mail")
	b.ReportMetric(median(signedHeadless), "headless-signed-cpu-µs/mail")
	b.ReportMetric(median(signedLocal), "local-signed-cpu-µs/mail")
}

// burstResult is what one burst measured.
type burstResult struct {
	rate       float64 // mails per second, first send to last 250
	shownRate  float64 // mails per second until the program had them all
	cpuPerMail float64 // the process's CPU µs per mail, until then
	// cpuSigned is the CPU µs per mail until the server made the last
	// deferred signature: all the work of the burst.
	cpuSigned float64
}

// runBurst sends one burst into a fresh server whose inbox holds listed
// mails, with the program open on the inbox when withTUI.
func runBurst(b *testing.B, withTUI bool, listed int) burstResult {
	b.Helper()
	srv := servertest.Start(b, func(cfg *server.Config) { cfg.MaxEmailsPerInbox = 1 << 20 })
	defer srv.Close()
	c, err := client.New(srv.URL(), srv.APIKey(), ClientOptions()...)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	inbox, err := c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionEncrypted})
	if err != nil {
		b.Fatal(err)
	}
	if listed > 0 {
		sendBurst(b, srv.SMTPAddr(), inbox.Address(), listed, burstMails)
		if err := srv.WaitForSignatures(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var got atomic.Int64
	allShown := make(chan struct{})
	if withTUI {
		stop := startBurstProgram(b, c, inbox.Address(), listed, &got, allShown)
		defer stop()
	}
	cpu := processCPUTime()
	start := time.Now()
	sendBurst(b, srv.SMTPAddr(), inbox.Address(), burstMails, 0)
	elapsed := time.Since(start)
	r := burstResult{rate: burstMails / elapsed.Seconds(), shownRate: burstMails / elapsed.Seconds()}
	if withTUI {
		select {
		case <-allShown:
		case <-ctx.Done():
			b.Fatalf("the program was handed %d of %d mails", got.Load(), burstMails)
		}
		r.shownRate = burstMails / time.Since(start).Seconds()
	}
	r.cpuPerMail = float64((processCPUTime() - cpu).Microseconds()) / burstMails
	if err := srv.WaitForSignatures(ctx); err != nil {
		b.Fatal(err)
	}
	r.cpuSigned = float64((processCPUTime() - cpu).Microseconds()) / burstMails
	return r
}

// startBurstProgram runs the program on c at 200x50, drawing into a
// pipe that is read as a terminal would; got counts the mails of
// address handed to it, and allShown is closed once burstMails were.
// It returns once the inbox delivers and its listed mails are listed.
func startBurstProgram(b *testing.B, c *client.Client, address string, listed int, got *atomic.Int64, allShown chan struct{}) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	in, keys := io.Pipe()
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(io.Discard, outR)
	}()
	ready := make(chan struct{})
	var once, readyOnce sync.Once
	delivering := false // the inbox delivers; ready once its list is in
	status := fmt.Sprintf("%d emails ·", listed)
	filter := func(tm tea.Model, msg tea.Msg) tea.Msg {
		if delivering && listed > 0 { // the view only until the list is in
			if view := tm.(App).View().Content; strings.Contains(view, status) && !strings.Contains(view, "loading…") {
				delivering = false
				readyOnce.Do(func() { close(ready) })
			}
		}
		ev, ok := msg.(feed.EventMsg)
		if !ok {
			return msg
		}
		switch m := ev.Msg.(type) {
		case feed.InboxReadyMsg:
			if m.Address == address {
				delivering = true
				if listed == 0 {
					readyOnce.Do(func() { close(ready) })
				}
			}
		case feed.NewEmailsMsg:
			if got.Add(int64(len(m.Emails))) >= burstMails {
				once.Do(func() { close(allShown) })
			}
		}
		return msg
	}
	dark := true
	cfg := Config{Client: c, Settings: &Settings{ServerLabel: "bench", DarkTheme: &dark}}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, tea.WithInput(in), tea.WithOutput(outW), tea.WithWindowSize(200, 50), tea.WithFilter(filter))
	}()
	select {
	case <-ready:
	case err := <-done:
		b.Fatalf("the program ended before the inbox delivered: %v", err)
	case <-time.After(3 * time.Minute):
		b.Fatal("the inbox never delivered")
	}
	return func() {
		cancel()
		keys.Close()
		if err := <-done; err != nil {
			b.Errorf("Run: %v", err)
		}
		outW.Close()
		<-drained
		outR.Close()
	}
}

// sendBurst sends n mails to address over burstConns SMTP connections,
// numbered from after+1; every third carries an attachment.
func sendBurst(b *testing.B, smtpAddr, address string, n, after int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, burstConns)
	for range burstConns {
		wg.Go(func() {
			conn, err := smtp.Dial(smtpAddr)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			for {
				i := int(next.Add(1))
				if i > n {
					errs <- conn.Quit()
					return
				}
				if err := smtpsend.SendOn(conn, "orders@example.org", []string{address}, burstMessage(address, after+i)); err != nil {
					errs <- fmt.Errorf("mail %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// burstMessage is mail i of a burst: text and HTML of about 1 KB each,
// and on every third mail a small PDF attachment.
func burstMessage(to string, i int) []byte {
	body := fmt.Sprintf("--b\r\nContent-Type: multipart/alternative; boundary=\"a\"\r\n\r\n"+
		"--a\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nOrder %d shipped. Track it at https://example.org/track/%d\r\n"+
		"--a\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Order %d shipped.</p><p><a href=\"https://example.org/track/%d\">Track it</a></p>\r\n"+
		"--a--\r\n", i, i, i, i)
	if i%3 == 0 {
		body += "--b\r\nContent-Type: application/pdf; name=\"invoice.pdf\"\r\nContent-Disposition: attachment; filename=\"invoice.pdf\"\r\n" +
			"Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSPj4Kc3RyZWFtCg==\r\n"
	}
	return fmt.Appendf(nil, "From: Shop %d <orders@example.org>\r\nTo: %s\r\nSubject: Burst order #%d has shipped\r\n"+
		"Message-ID: <burst-%d@example.org>\r\nDate: Thu, 26 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n%s--b--\r\n", i%31, to, i, i, body)
}

// median is the middle of xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}
