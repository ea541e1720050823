package cli

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"golang.org/x/crypto/bcrypt"

	"sandview/client/smtpsend"
)

func TestAdvertisedHost(t *testing.T) {
	name, err := os.Hostname()
	if err != nil || name == "" {
		name = "localhost"
	}
	for _, c := range []struct{ addr, flag, want string }{
		{"0.0.0.0:2525", "", net.JoinHostPort(name, "2525")},
		{"[::]:2525", "", net.JoinHostPort(name, "2525")},
		{":2525", "", net.JoinHostPort(name, "2525")},
		{"127.0.0.1:2525", "", "127.0.0.1:2525"},
		{"[::1]:2525", "", "[::1]:2525"},
		{"10.1.2.3:2525", "", "10.1.2.3:2525"},
		{"[::]:2525", "box.example", "box.example:2525"},
		{"127.0.0.1:2525", "box.example", "box.example:2525"},
	} {
		if got := advertised(c.addr, c.flag); got != c.want {
			t.Errorf("advertised(%q, %q) = %q, want %q", c.addr, c.flag, got, c.want)
		}
	}
}

// TestServeAdvertisesItsHostAndSMTPAuth: with --advertise (here through
// SVC_ADVERTISE) the banner, the SSH line and the connect block name that
// host, never the listen address; with --smtp-auth-file the banner says
// AUTH is required, and the 530 and 535 refusals are logged.
func TestServeAdvertisesItsHostAndSMTPAuth(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	logins := filepath.Join(dir, "logins")
	if err := os.WriteFile(logins, []byte("ci:"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, builtBinary, "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--ssh", "127.0.0.1:0",
		"--data", filepath.Join(dir, "data"), "--smtp-auth-file", logins)
	cmd.Env = append(os.Environ(), "SVC_API_KEY=advertise-test-key", "SVC_ADVERTISE=box.example")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var banner strings.Builder
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		banner.WriteString(lines.Text() + "\n")
		if strings.HasPrefix(lines.Text(), "export SMTP_HOST=") {
			break
		}
	}
	text := banner.String()
	for _, want := range []string{
		`(?m)^  HTTP API  http://box\.example:\d+$`, `(?m)^  SMTP      box\.example:(\d+)$`,
		`(?m)^  SSH       box\.example:(\d+) \(ssh -p \d+ box\.example; keys in `,
		`(?m)^  logins    SMTP AUTH required \(PLAIN or LOGIN\), the users of ` + regexp.QuoteMeta(logins) + `$`,
		`(?m)^export SERVICE_URL=http://box\.example:\d+$`, `(?m)^export SMTP_HOST=box\.example SMTP_PORT=\d+$`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("the banner has no line matching %s:\n%s", want, text)
		}
	}
	// The STARTTLS certificate is for loopback too; no other line names it.
	if strings.Contains(regexp.MustCompile(`(?m)^  STARTTLS .*$`).ReplaceAllString(text, ""), "127.0.0.1") {
		t.Errorf("the banner names the listen address:\n%s", text)
	}
	port := regexp.MustCompile(`(?m)^  SMTP      box\.example:(\d+)$`).FindStringSubmatch(text)
	if port == nil {
		t.Fatal("no SMTP port in the banner")
	}
	smtpAddr := net.JoinHostPort("127.0.0.1", port[1])
	msg := []byte("Subject: x\r\n\r\nx\r\n")
	// STARTTLS is offered with a certificate made for the advertised name.
	certFile := filepath.Join(dir, "data", smtpTLSCertFile)
	if _, err := sendSTARTTLS(smtpAddr, "box.example", certFile, nil, "app@example.org", []string{"a@sandbox.test"}, msg); smtpsend.Code(err) != 530 {
		t.Fatalf("mail without AUTH: %v, want 530", err)
	}
	bad := sasl.NewPlainClient("", "ci", "wrong")
	if _, err := sendSTARTTLS(smtpAddr, "box.example", certFile, bad, "app@example.org", []string{"a@sandbox.test"}, msg); smtpsend.Code(err) != 535 {
		t.Fatalf("mail with a wrong password: %v, want 535", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	log := stderr.String()
	for _, want := range []string{"event=smtp-auth-refused code=530 client=127.0.0.1", "event=smtp-auth-refused code=535 client=127.0.0.1"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "wrong") {
		t.Error("the log holds the password")
	}
}
