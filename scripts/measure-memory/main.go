// Command measure-memory measures the memory of the real `sandview serve`
// process as a user runs it: it builds sandview, starts `sandview serve`
// (in memory, default flags but a given API key and --log-level warn,
// random loopback ports, no GOGC or GOMEMLIMIT in its environment),
// creates an inbox over the HTTP API, sends it a burst of small mails over
// SMTP on several connections, waits until all are stored and the process
// has gone idle (every payload signed), then waits for the process to
// settle (its RSS no longer falling, bounded) and reports VmRSS and VmHWM
// from /proc/PID/status, and the CPU time the server spent from the
// burst's start until idle, a mail; for encrypted mail, also the share of
// it its three ML-DSA-65 signatures take at least (the signing floor:
// signatures made on this process's own thread once the server is idle).
// Nothing forces a collection in the server. One fresh server per case.
//
//	go run ./scripts/measure-memory                  # encrypted and plain, 10,000 mails each
//	go run ./scripts/measure-memory -case encrypted -- --memory-limit 0
//
// Arguments after -- go to `sandview serve`.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/crypto"
	"sandview/server/dnsresolve/dnstest"
)

// options are the command's flags.
type options struct {
	mails, conns int
	cases        []string
	bin          string
	settleMax    time.Duration
	serveArgs    []string
	env          []string
}

func main() {
	var o options
	var which string
	flag.IntVar(&o.mails, "mails", 10000, "mails in the burst")
	flag.IntVar(&o.conns, "conns", 8, "SMTP connections sending them")
	flag.StringVar(&which, "case", "encrypted,plain", "inboxes to measure: encrypted, plain or both, comma-separated")
	flag.StringVar(&o.bin, "bin", "", "sandview binary to run (default: build the module's into a temporary directory)")
	flag.DurationVar(&o.settleMax, "settle", 90*time.Second, "longest wait for the RSS to stop falling after the burst")
	flag.Func("env", "KEY=VALUE to add to the server's environment (repeatable), e.g. GOGC=50 to compare", func(v string) error {
		if !strings.Contains(v, "=") {
			return errors.New("want KEY=VALUE")
		}
		o.env = append(o.env, v)
		return nil
	})
	flag.Parse()
	o.cases = strings.Split(which, ",")
	o.serveArgs = flag.Args()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "measure-memory:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	tmp, err := os.MkdirTemp("", "measure-memory-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	if o.bin == "" {
		o.bin = filepath.Join(tmp, "sandview")
		build := exec.CommandContext(ctx, "go", "build", "-o", o.bin, "sandview")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build sandview: %w", err)
		}
	}
	// The server's checks ask a DNS server on loopback that knows no
	// name, never the machine's resolver.
	dns, err := dnstest.Serve(dnstest.Options{})
	if err != nil {
		return err
	}
	defer dns.Close()
	o.serveArgs = append(o.serveArgs, "--dns", dns.Addr)
	for _, c := range o.cases {
		if c != "encrypted" && c != "plain" {
			return fmt.Errorf("-case: want encrypted or plain, got %q", c)
		}
		r, err := measure(ctx, o, tmp, c == "encrypted")
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		perMail := float64(r.cpu.Microseconds()) / float64(o.mails)
		floor := ""
		if c == "encrypted" {
			sig, err := signatureCPU()
			if err != nil {
				return fmt.Errorf("signing floor: %w", err)
			}
			threeSigs := 3 * float64(sig.Microseconds())
			floor = fmt.Sprintf(" (its 3 signatures %.0f µs here: %.0f%% of it)", threeSigs, 100*threeSigs/perMail)
		}
		fmt.Printf("%-9s %d mails, %d conns: ingest %.0f mails/s; idle %.1fs after the last 250; "+
			"server CPU %.0f µs a mail%s; RSS %.0f MB at idle, %.0f MB settled (after %.0fs more); peak (VmHWM) %.0f MB\n",
			c, o.mails, o.conns, r.rate, r.idleAfter.Seconds(), perMail, floor,
			r.idleRSS, r.settledRSS, r.settledAfter.Seconds(), r.peak)
	}
	return nil
}

// result is one case's measurement.
type result struct {
	rate                    float64 // mails per second over SMTP
	idleAfter, settledAfter time.Duration
	idleRSS, settledRSS     float64       // MB
	cpu                     time.Duration // the server's, from the burst's start until idle
	peak                    float64       // MB, VmHWM at the end
}

// measure runs one server through one burst.
func measure(ctx context.Context, o options, tmp string, encrypted bool) (result, error) {
	var r result
	home, err := os.MkdirTemp(tmp, "home-")
	if err != nil {
		return r, fmt.Errorf("home: %w", err)
	}
	const key = "measure-memory-key"
	args := append([]string{"serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--api-key", key, "--log-level", "warn"}, o.serveArgs...)
	cmd := exec.CommandContext(ctx, o.bin, args...)
	// Only SANDVIEW_HOME and -env: no GOGC, GOMEMLIMIT or SVC_* from this
	// shell.
	cmd.Env = append([]string{"SANDVIEW_HOME=" + home}, o.env...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return r, fmt.Errorf("stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("start sandview serve: %w", err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	apiURL, smtpAddr, err := readConnect(stdout)
	if err != nil {
		return r, err
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	pid := cmd.Process.Pid

	address, err := createInbox(apiURL, key, encrypted)
	if err != nil {
		return r, err
	}
	cpuStart, err := cpuTime(pid)
	if err != nil {
		return r, err
	}
	start := time.Now()
	if err := burst(smtpAddr, address, o.mails, o.conns); err != nil {
		return r, err
	}
	sent := time.Now()
	r.rate = float64(o.mails) / sent.Sub(start).Seconds()
	if err := waitStored(apiURL, key, address, o.mails); err != nil {
		return r, err
	}
	if err := waitIdle(pid); err != nil {
		return r, err
	}
	r.idleAfter = time.Since(sent)
	cpuEnd, err := cpuTime(pid)
	if err != nil {
		return r, err
	}
	r.cpu = cpuEnd - cpuStart
	if r.idleRSS, err = statusMB(pid, "VmRSS"); err != nil {
		return r, err
	}
	idle := time.Now()
	if r.settledRSS, err = waitSettled(pid, o.settleMax); err != nil {
		return r, err
	}
	r.settledAfter = time.Since(idle)
	r.peak, err = statusMB(pid, "VmHWM")
	return r, err
}

// readConnect reads the server's banner up to its SMTP export line and
// returns the API's URL and the SMTP address.
func readConnect(stdout io.Reader) (apiURL, smtpAddr string, err error) {
	sc := bufio.NewScanner(stdout)
	unquote := func(s string) string { return strings.Trim(s, `'"`) }
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "export SERVICE_URL="); ok {
			apiURL = unquote(v)
		}
		if v, ok := strings.CutPrefix(line, "export SMTP_HOST="); ok {
			host, port, _ := strings.Cut(v, " SMTP_PORT=")
			smtpAddr = unquote(host) + ":" + unquote(port)
			break
		}
	}
	if apiURL == "" || smtpAddr == "" {
		return "", "", fmt.Errorf("no connect lines in the banner of sandview serve (%v)", sc.Err())
	}
	return apiURL, smtpAddr, nil
}

// api makes one API request and decodes its JSON answer into out.
func api(method, url, key string, body, out any, want int) error {
	var in io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		in = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, in)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: status %d: %s", method, url, resp.StatusCode, data)
	}
	return json.Unmarshal(data, out)
}

// createInbox creates an encrypted or plain inbox, without the sender
// authentication checks (their DNS lookups would measure the network).
func createInbox(apiURL, key string, encrypted bool) (string, error) {
	req := map[string]any{"emailAuth": false}
	if encrypted {
		keys, err := crypto.GenerateKeyPair()
		if err != nil {
			return "", fmt.Errorf("key pair: %w", err)
		}
		req["clientKemPk"] = crypto.EncodeBase64URL(keys.PublicKey)
	} else {
		req["encryption"] = "plain"
	}
	var in struct {
		EmailAddress string `json:"emailAddress"`
	}
	if err := api("POST", apiURL+"/api/inboxes", key, req, &in, http.StatusCreated); err != nil {
		return "", fmt.Errorf("create inbox: %w", err)
	}
	return in.EmailAddress, nil
}

// burst sends total small mails to address over conns SMTP connections.
func burst(smtpAddr, address string, total, conns int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for range conns {
		wg.Go(func() {
			c, err := smtp.Dial(smtpAddr)
			if err != nil {
				errs <- fmt.Errorf("dial SMTP: %w", err)
				return
			}
			defer c.Close()
			for i := next.Add(1); i <= int64(total); i = next.Add(1) {
				if err := sendOne(c, address, int(i)); err != nil {
					errs <- fmt.Errorf("mail %d: %w", i, err)
					return
				}
			}
			if err := c.Quit(); err != nil {
				errs <- fmt.Errorf("QUIT: %w", err)
			}
		})
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// sendOne sends the i-th mail on c: an order confirmation with a text and
// an HTML part, about 1.4 KB (the server's benchmarks send the same).
func sendOne(c *smtp.Client, to string, i int) error {
	if err := c.Mail("orders@example.org", nil); err != nil {
		return err
	}
	if err := c.Rcpt(to, nil); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	thanks := strings.Repeat("Thank you for your order. ", 20)
	fmt.Fprintf(w, "From: Shop <orders@example.org>\r\nTo: %s\r\nSubject: Your order #%d has shipped\r\n"+
		"Message-ID: <order-%d@example.org>\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n"+
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\nTrack it at https://example.org/track/%d\r\n"+
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>%s</p><p><a href=\"https://example.org/track/%d\">Track it</a></p>\r\n"+
		"--b--\r\n", to, i, i, thanks, i, thanks, i)
	return w.Close()
}

// waitStored polls the inbox's sync status until it holds want mails.
func waitStored(apiURL, key, address string, want int) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var status struct {
			EmailCount int `json:"emailCount"`
		}
		if err := api("GET", apiURL+"/api/inboxes/"+address+"/sync", key, nil, &status, http.StatusOK); err != nil {
			return err
		}
		if status.EmailCount == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the inbox holds %d mails, want %d", status.EmailCount, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
