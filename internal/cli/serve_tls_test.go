package cli

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"sandview/client/smtpsend"
)

// sendSTARTTLS sends msg after STARTTLS, verifying the server as
// serverName against the PEM certificate in certFile alone, as an app
// pointed at the file the banner names. It returns the certificate the
// server presented.
func sendSTARTTLS(addr, serverName, certFile string, auth sasl.Client, from string, to []string, msg []byte) (*x509.Certificate, error) {
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		return nil, fmt.Errorf("%s holds no PEM certificate", certFile)
	}
	d := smtpsend.Dialer{StartTLS: &tls.Config{RootCAs: roots, ServerName: serverName}, Auth: auth}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := d.Dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := smtpsend.SendOn(c, from, to, msg); err != nil {
		return nil, err
	}
	// The handshake is done by the first exchange after STARTTLS.
	state, ok := c.TLSConnectionState()
	if !ok || len(state.PeerCertificates) == 0 {
		return nil, fmt.Errorf("SMTP %s: no TLS connection after STARTTLS", addr)
	}
	return state.PeerCertificates[0], c.Quit()
}

// bannerField is the rest of the banner line starting with "  "+name,
// or fails the test.
func bannerField(t *testing.T, banner, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + ` +(.+)$`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("the banner has no %q line:\n%s", name, banner)
	}
	return m[1]
}

// bannerSMTP is the SMTP port and TLS certificate file of a banner's
// export lines.
func bannerSMTP(t *testing.T, banner string) (port, certFile string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^export SMTP_HOST=\S+ SMTP_PORT=(\d+)$`).FindStringSubmatch(banner)
	c := regexp.MustCompile(`(?m)^export SMTP_TLS_CERT=(\S+)$`).FindStringSubmatch(banner)
	if m == nil || c == nil {
		t.Fatalf("the banner exports no SMTP port or no SMTP_TLS_CERT:\n%s", banner)
	}
	return m[1], c[1]
}

// fingerprint is the SHA-256 of a DER certificate as the banner shows it.
func fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	hex := make([]string, len(sum))
	for i, b := range sum {
		hex[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(hex, ":")
}

// ehloExtensions says whether a plaintext EHLO offers STARTTLS and AUTH.
func ehloExtensions(t *testing.T, addr string) (starttls, auth bool) {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		t.Fatal(err)
	}
	starttls, _ = c.Extension("STARTTLS")
	auth, _ = c.Extension("AUTH")
	return starttls, auth
}

// TestServeSTARTTLSCertificateMadeAtStart: `serve` offers STARTTLS with a
// certificate made at start for the advertised name and loopback's,
// prints its file and SHA-256 and exports the file; the file holds the
// public certificate alone; AUTH is offered before STARTTLS too; Python's
// smtplib (strict verification against the file) and a Go client
// verifying the advertised name deliver over TLS.
func TestServeSTARTTLSCertificateMadeAtStart(t *testing.T) {
	home, data := t.TempDir(), filepath.Join(t.TempDir(), "data")
	srv := startServerProcess(t, home, "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--data", data,
		"--advertise", "box.example", "--catch-all", "qa@sandbox.test")
	if got, want := bannerField(t, srv.banner, "STARTTLS"), "offered (not required), certificate made at start for box.example, localhost, 127.0.0.1, ::1"; got != want {
		t.Fatalf("STARTTLS line %q, want %q", got, want)
	}
	certFile := filepath.Join(data, smtpTLSCertFile)
	port, exported := bannerSMTP(t, srv.banner)
	if got := bannerField(t, srv.banner, "TLS cert"); got != certFile || exported != certFile {
		t.Fatalf("TLS cert line %q, export %q, want %s", got, exported, certFile)
	}
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(certFile); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("certificate file: %v, %v", info.Mode(), err)
	}
	block, rest := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE" || len(strings.TrimSpace(string(rest))) != 0 || strings.Contains(string(pemBytes), "PRIVATE") {
		t.Fatalf("the certificate file holds more or less than one certificate:\n%s", pemBytes)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cert.DNSNames, []string{"box.example", "localhost"}) || len(cert.IPAddresses) != 2 ||
		!cert.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)) || !cert.IPAddresses[1].Equal(net.IPv6loopback) {
		t.Fatalf("certificate names %v %v", cert.DNSNames, cert.IPAddresses)
	}
	if got := bannerField(t, srv.banner, "SHA-256"); got != fingerprint(block.Bytes) {
		t.Fatalf("banner fingerprint %s, the file's %s", got, fingerprint(block.Bytes))
	}
	if d := time.Until(cert.NotAfter); d < 300*24*time.Hour {
		t.Fatalf("the certificate expires in %v", d)
	}

	addr := net.JoinHostPort("127.0.0.1", port)
	if starttls, auth := ehloExtensions(t, addr); !starttls || !auth {
		t.Fatalf("plaintext EHLO: STARTTLS %v, AUTH %v; want both", starttls, auth)
	}
	script := `
import os, smtplib, ssl
from email.message import EmailMessage
msg = EmailMessage()
msg["From"], msg["To"], msg["Subject"] = "app@example.org", "python@example.org", "TLS from Python"
msg.set_content("over STARTTLS")
context = ssl.create_default_context(cafile=os.environ["SMTP_TLS_CERT"])
context.verify_flags |= ssl.VERIFY_X509_STRICT
with smtplib.SMTP("127.0.0.1", int(os.environ["SMTP_PORT"])) as smtp:
    smtp.starttls(context=context)
    smtp.login("py-app", "any password")
    smtp.send_message(msg)
`
	shellMust(t, t.TempDir(), srv.exports, "python3 -c '"+script+"'")
	// Without the file, Python trusts only the system's CAs.
	untrusting := strings.Replace(script, `cafile=os.environ["SMTP_TLS_CERT"]`, "", 1)
	if r := shell(t, t.TempDir(), srv.exports, "python3 -c '"+untrusting+"'"); r.code == 0 || !strings.Contains(r.stderr, "CERTIFICATE_VERIFY_FAILED") {
		t.Fatalf("Python not trusting the file: exit %d\n%s", r.code, r.stderr)
	}
	peer, err := sendSTARTTLS(addr, "box.example", certFile, nil, "app@example.org", []string{"go@example.org"}, []byte("Subject: TLS from Go\r\n\r\nhi\r\n"))
	if err != nil {
		t.Fatalf("a Go client verifying box.example against %s: %v", certFile, err)
	}
	if !peer.Equal(cert) {
		t.Fatal("the server presented another certificate than the file's")
	}
	// box.example resolves nowhere here: reach the API on loopback.
	httpPort := regexp.MustCompile(`(?m)^export SERVICE_URL=http://box\.example:(\d+)$`).FindStringSubmatch(srv.banner)
	if httpPort == nil {
		t.Fatalf("no SERVICE_URL in the banner:\n%s", srv.banner)
	}
	exports := srv.exports + "export SERVICE_URL=http://127.0.0.1:" + httpPort[1] + "\n"
	user := t.TempDir()
	waited := decodeJSON[[]emailView](t, shellMust(t, user, exports, `sandview wait --inbox qa@sandbox.test --subject '^TLS from' --count 2 --timeout 30s --json`))
	for _, e := range waited {
		raw := shellMust(t, user, exports, `sandview email raw `+e.ID+` --inbox qa@sandbox.test`).stdout
		want := map[string]string{"TLS from Python": "with ESMTPSA", "TLS from Go": "with ESMTPS "}[e.Subject]
		if want == "" || !strings.Contains(raw, want) {
			t.Fatalf("%q was not received %q:\n%s", e.Subject, want, raw)
		}
		if e.Subject == "TLS from Python" && e.SMTPUser != "py-app" {
			t.Fatalf("the Python mail's login %q", e.SMTPUser)
		}
	}

	// A new start makes a new certificate and saves it over the old.
	if code, rest := srv.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("serve on SIGTERM: exit %d, %q", code, rest)
	}
	again := startServerProcess(t, home, "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--data", data, "--advertise", "box.example")
	saved, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	block, _ = pem.Decode(saved)
	if block == nil || bannerField(t, again.banner, "SHA-256") != fingerprint(block.Bytes) || fingerprint(block.Bytes) == fingerprint(cert.Raw) {
		t.Fatalf("after a restart the banner says %s, the file holds %x, the first start's was %s",
			bannerField(t, again.banner, "SHA-256"), saved, fingerprint(cert.Raw))
	}
}

// TestServeSTARTTLSOff: with --smtp-starttls=false (SVC_SMTP_STARTTLS)
// EHLO offers no STARTTLS, the banner says so and no certificate is made.
func TestServeSTARTTLSOff(t *testing.T) {
	home := t.TempDir()
	t.Setenv("SVC_SMTP_STARTTLS", "false")
	srv := startServerProcess(t, home, "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0")
	if got := bannerField(t, srv.banner, "STARTTLS"); got != "off: plain SMTP only" || strings.Contains(srv.banner, "SMTP_TLS_CERT") {
		t.Fatalf("STARTTLS line %q in\n%s", got, srv.banner)
	}
	port := regexp.MustCompile(`(?m)^export SMTP_HOST=\S+ SMTP_PORT=(\d+)$`).FindStringSubmatch(srv.banner)
	if port == nil {
		t.Fatalf("no SMTP port in\n%s", srv.banner)
	}
	if starttls, auth := ehloExtensions(t, net.JoinHostPort("127.0.0.1", port[1])); starttls || !auth {
		t.Fatalf("EHLO: STARTTLS %v, AUTH %v; want AUTH alone", starttls, auth)
	}
	if _, err := os.Stat(filepath.Join(home, "server", smtpTLSCertFile)); !os.IsNotExist(err) {
		t.Fatalf("a certificate was saved with STARTTLS off: %v", err)
	}
}

// TestLocalRequireTLS: `sandview --local --smtp-require-tls` refuses MAIL
// and AUTH before STARTTLS with 530 5.7.0 and offers no AUTH there; after
// STARTTLS (verified against the file of its state and banner) AUTH and
// mail are taken. swaks without --tls is refused, with --tls it delivers.
func TestLocalRequireTLS(t *testing.T) {
	home := t.TempDir()
	srv := startServerProcess(t, home, "--local", "--home", home, "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--smtp-require-tls")
	if got := bannerField(t, srv.banner, "STARTTLS"); !strings.HasPrefix(got, "required before MAIL and AUTH, certificate made at start for localhost, 127.0.0.1, ::1") {
		t.Fatalf("STARTTLS line %q", got)
	}
	st, _, err := readLocalState(home)
	certFile := filepath.Join(localDir(home), smtpTLSCertFile)
	if err != nil || st.TLSCert != certFile {
		t.Fatalf("state %+v, %v: want the certificate %s", st, err, certFile)
	}
	if starttls, auth := ehloExtensions(t, st.SMTP); !starttls || auth {
		t.Fatalf("plaintext EHLO: STARTTLS %v, AUTH %v; want STARTTLS alone", starttls, auth)
	}
	c, err := smtp.Dial(st.SMTP)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var refused *smtp.SMTPError
	for what, err := range map[string]error{
		"MAIL": c.Mail("app@example.org", nil),
		"AUTH": c.Auth(sasl.NewPlainClient("", "app", "pw")),
	} {
		if !errors.As(err, &refused) || refused.Code != 530 || refused.EnhancedCode != (smtp.EnhancedCode{5, 7, 0}) || refused.Message != "Must issue a STARTTLS command first" {
			t.Fatalf("%s before STARTTLS: %v, want 530 5.7.0 Must issue a STARTTLS command first", what, err)
		}
	}
	if _, err := sendSTARTTLS(st.SMTP, "127.0.0.1", certFile, sasl.NewPlainClient("", "go-app", "pw"), "app@example.org",
		[]string{"someone@example.org"}, []byte("Subject: required TLS from Go\r\n\r\nhi\r\n")); err != nil {
		t.Fatalf("after STARTTLS: %v", err)
	}
	host, port, _ := net.SplitHostPort(st.SMTP)
	swaks := func(extra ...string) ([]byte, error) {
		args := append([]string{"--server", host, "--port", port, "--from", "app@example.org", "--to", "someone@example.org",
			"--header", "Subject: required TLS from swaks"}, extra...)
		return exec.CommandContext(t.Context(), "swaks", args...).CombinedOutput()
	}
	if out, err := swaks(); err == nil || !strings.Contains(string(out), "530 5.7.0 Must issue a STARTTLS command first") {
		t.Fatalf("swaks without --tls: %v\n%s", err, out)
	}
	if out, err := swaks("--tls", "--auth", "LOGIN", "--auth-user", "swaks-app", "--auth-password", "pw"); err != nil {
		t.Fatalf("swaks --tls: %v\n%s", err, out)
	}
	h := &cli{t: t, home: home, ctx: t.Context()}
	waited := decodeJSON[[]emailView](t, h.mustRaw("--home", home, "wait", "--local", "--subject", "^required TLS", "--count", "2", "--timeout", "30s", "--json"))
	var users []string
	for _, e := range waited {
		users = append(users, e.SMTPUser)
	}
	if slices.Sort(users); !slices.Equal(users, []string{"go-app", "swaks-app"}) {
		t.Fatalf("the mails' logins %v", users)
	}
	if code, rest := srv.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("--local on SIGTERM: exit %d, %q", code, rest)
	}
}
