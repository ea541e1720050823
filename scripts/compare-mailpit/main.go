// Command compare-mailpit measures how fast `sandview serve --data` and
// Mailpit (its SQLite store) take mail on ONE SMTP connection, side by
// side: it starts both on fresh data directories and random loopback
// ports, then sends each, in turn, rounds of small mails (the 1.5 KB
// multipart notification of the server benchmarks) one after the other
// on one connection (net/smtp: one round trip per command, the same
// client for both), and prints mails/s per round with the load average.
// Sender checks are off on sandview's inbox and reverse DNS off in
// Mailpit, and both keep every mail (no eviction), so both do the same
// work: receive, parse, store.
//
//	go install github.com/axllent/mailpit@v1.33.1
//	go run ./scripts/compare-mailpit                      # 3 rounds of 1,000 mails each
//	go run ./scripts/compare-mailpit -rounds 5 -mails 2000 -mailpit ~/go/bin/mailpit
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
)

func main() {
	rounds := flag.Int("rounds", 3, "rounds on each server, alternating")
	mails := flag.Int("mails", 1000, "mails per round")
	bin := flag.String("sandview", "", "sandview binary (default: built from this checkout)")
	home, _ := os.UserHomeDir()
	mailpit := flag.String("mailpit", filepath.Join(home, "go", "bin", "mailpit"), "Mailpit binary")
	flag.Parse()
	if err := run(*rounds, *mails, *bin, *mailpit); err != nil {
		fmt.Fprintln(os.Stderr, "compare-mailpit:", err)
		os.Exit(1)
	}
}

// target is a running server to send to.
type target struct {
	name, smtp, to string
	cmd            *exec.Cmd
}

func run(rounds, mails int, bin, mailpit string) error {
	dir, err := os.MkdirTemp("", "compare-mailpit")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		bin = filepath.Join(dir, "sandview")
		if out, err := exec.Command("go", "build", "-o", bin, "sandview").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	sv, err := startSandview(bin, dir)
	if err != nil {
		return err
	}
	defer stop(sv.cmd)
	mp, err := startMailpit(mailpit, dir)
	if err != nil {
		return err
	}
	defer stop(mp.cmd)
	for r := 1; r <= rounds; r++ {
		for _, t := range []*target{sv, mp} {
			rate, err := send(t, mails, r)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			load, _ := os.ReadFile("/proc/loadavg")
			fmt.Printf("round %d  %-16s %7.0f mails/s  (load %s)\n", r, t.name, rate, strings.Join(strings.Fields(string(load))[:3], " "))
		}
	}
	return nil
}

// startSandview starts `sandview serve --data` and creates a plain inbox
// without sender checks.
func startSandview(bin, dir string) (*target, error) {
	const key = "compare-key"
	cmd := exec.Command(bin, "serve", "--data", filepath.Join(dir, "sandview-data"), "--home", filepath.Join(dir, "home"),
		"--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--api-key", key, "--log-level", "error",
		"--max-emails-per-inbox", "1000000", "--max-store-bytes", "100000000000")
	cmd.Env = []string{} // no SVC_* variable of the caller changes the server
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &target{name: "sandview --data", cmd: cmd}
	var api string
	lines := bufio.NewScanner(out)
	for (api == "" || t.smtp == "") && lines.Scan() {
		fields := strings.Fields(lines.Text())
		switch {
		case len(fields) == 3 && fields[0] == "HTTP":
			api = fields[2]
		case len(fields) == 2 && fields[0] == "SMTP":
			t.smtp = fields[1]
		}
	}
	if api == "" || t.smtp == "" {
		stop(cmd)
		return nil, errors.New("sandview serve printed no addresses")
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	req, _ := http.NewRequest("POST", api+"/api/inboxes", strings.NewReader(`{"encryption":"plain","emailAuth":false}`))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		stop(cmd)
		return nil, err
	}
	defer resp.Body.Close()
	var in struct {
		EmailAddress string `json:"emailAddress"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&in); err != nil || in.EmailAddress == "" {
		stop(cmd)
		return nil, fmt.Errorf("create inbox: %d %v", resp.StatusCode, err)
	}
	t.to = in.EmailAddress
	return t, nil
}

// startMailpit starts Mailpit on its own SQLite file and waits until its
// SMTP port answers.
func startMailpit(bin, dir string) (*target, error) {
	smtpAddr, httpAddr := freeAddr(), freeAddr()
	cmd := exec.Command(bin, "--database", filepath.Join(dir, "mailpit.db"), "--smtp", smtpAddr, "--listen", httpAddr,
		"--max", "0", "--smtp-disable-rdns", "--disable-version-check", "--quiet")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := smtp.Dial(smtpAddr); err == nil {
			c.Close()
			return &target{name: "mailpit (sqlite)", smtp: smtpAddr, to: "someone@example.com", cmd: cmd}, nil
		}
	}
	stop(cmd)
	return nil, errors.New("mailpit did not answer on SMTP")
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// send sends mails one after the other on one connection and returns
// mails per second.
func send(t *target, mails, round int) (float64, error) {
	c, err := smtp.Dial(t.smtp)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.Hello("compare.example"); err != nil {
		return 0, err
	}
	start := time.Now()
	for i := range mails {
		if err := c.Mail("orders@example.org", nil); err != nil {
			return 0, err
		}
		if err := c.Rcpt(t.to, nil); err != nil {
			return 0, err
		}
		w, err := c.Data()
		if err != nil {
			return 0, err
		}
		if _, err := w.Write(message(t.to, round*mails+i)); err != nil {
			return 0, err
		}
		if err := w.Close(); err != nil {
			return 0, err
		}
	}
	return float64(mails) / time.Since(start).Seconds(), c.Quit()
}

// message is the server benchmarks' small multipart notification.
func message(to string, i int) []byte {
	var b bytes.Buffer
	thanks := strings.Repeat("Thank you for your order. ", 20)
	fmt.Fprintf(&b, "From: Shop <orders@example.org>\r\nTo: %s\r\nSubject: Your order #%d has shipped\r\n"+
		"Message-ID: <order-%d@example.org>\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n"+
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\nTrack it at https://example.org/track/%d\r\n"+
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>%s</p><p><a href=\"https://example.org/track/%d\">Track it</a></p>\r\n"+
		"--b--\r\n", to, i, i, thanks, i, thanks, i)
	return b.Bytes()
}

func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(os.Interrupt)
	_ = cmd.Wait()
}
