package smtpd_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"golang.org/x/crypto/bcrypt"

	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/servertest"
	"sandview/server/smtpd"
)

// sendAuth sends a mail after AUTH with auth.
func sendAuth(addr string, auth sasl.Client, to string, msg []byte) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("client.example"); err != nil {
		return err
	}
	if ok, mechs := c.Extension("AUTH"); !ok || mechs != "PLAIN LOGIN" {
		return fmt.Errorf("EHLO offers AUTH %v %q, want PLAIN LOGIN", ok, mechs)
	}
	if err := c.Auth(auth); err != nil {
		return err
	}
	if err := smtpsend.SendOn(c, "app@example.org", []string{to}, msg); err != nil {
		return err
	}
	return c.Quit()
}

// smtpUsers returns the SMTP user of each stored email, by subject.
func smtpUsers(t *testing.T, a *servertest.Client, address string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rec := range a.Emails(address, true) {
		meta, parsed := servertest.DecodePlain(t, rec)
		user, _ := parsed.Metadata[model.MetadataSMTPUser].(string)
		out[meta.Subject] = user
	}
	return out
}

// TestSMTPAuthAnyCredentials: PLAIN and LOGIN are offered on plaintext
// connections, any credentials are accepted, mail without AUTH still is,
// and the user name is kept with each mail (and names ESMTPA in the
// trace header).
func TestSMTPAuthAnyCredentials(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	if err := sendAuth(srv.SMTPAddr(), sasl.NewPlainClient("", "alice", "anything"), in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "plain")); err != nil {
		t.Fatalf("PLAIN: %v", err)
	}
	if err := sendAuth(srv.SMTPAddr(), sasl.NewLoginClient("bob@app.example", "x"), in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "login")); err != nil {
		t.Fatalf("LOGIN: %v", err)
	}
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "none"))
	want := map[string]string{"plain": "alice", "login": "bob@app.example", "none": ""}
	if got := smtpUsers(t, a, in.EmailAddress); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("SMTP users %v, want %v", got, want)
	}
	for _, rec := range a.Emails(in.EmailAddress, false) {
		raw := decodeRaw(t, a.Raw(in.EmailAddress, rec.ID))
		line, _, _ := strings.Cut(raw, "\r\n")
		meta, _ := servertest.DecodePlain(t, rec)
		if authed := strings.Contains(line, " with ESMTPA id "); authed != (meta.Subject != "none") {
			t.Fatalf("%s: Received line %q", meta.Subject, line)
		}
	}
}

// decodeRaw is the message of a plain raw record.
func decodeRaw(t *testing.T, rec model.RawRecord) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(rec.Raw)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSMTPAuthMalformedBase64: a response that is not base64 is answered
// 501 and the session goes on.
func TestSMTPAuthMalformedBase64(t *testing.T) {
	srv, _ := servertest.StartAPI(t)
	sc, _, _ := dialSMTP(t, srv.SMTPAddr(), "127.0.0.1")
	sc.cmd("EHLO client.example")
	if code, text := sc.cmd("AUTH PLAIN !!not-base64!!"); code != 501 {
		t.Fatalf("AUTH PLAIN with a malformed initial response: %d %q, want 501", code, text)
	}
	if code, _ := sc.cmd("AUTH LOGIN"); code != 334 {
		t.Fatalf("AUTH LOGIN: %d", code)
	}
	if code, text := sc.cmd("%%%"); code != 501 {
		t.Fatalf("malformed LOGIN response: %d %q, want 501", code, text)
	}
	if code, _ := sc.cmd("NOOP"); code != 250 {
		t.Fatalf("NOOP after 501: %d, the session should go on", code)
	}
	if code, _ := sc.cmd("AUTH PLAIN AGFsaWNlAHNlY3JldA=="); code != 235 { // \0alice\0secret
		t.Fatalf("AUTH PLAIN after 501: %d", code)
	}
	if code, _ := sc.cmd("MAIL FROM:<a@example.org>"); code != 250 {
		t.Fatalf("MAIL: %d", code)
	}
}

// TestSMTPAuthFile: with an auth file only its credentials are accepted
// (535 otherwise, recorded), and mail needs AUTH (530).
func TestSMTPAuthFile(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "smtp-users")
	// htpasswd -B writes $2y$ hashes: the same algorithm.
	content := "# users\nalice:" + strings.Replace(string(hash), "$2a$", "$2y$", 1) + "\n\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SMTP.AuthFile = file })
	in := a.CreatePlain(nil)
	msg := servertest.SimpleMessage(in.EmailAddress, "authed")

	if err := servertest.SendMail(srv.SMTPAddr(), "app@example.org", []string{in.EmailAddress}, msg); smtpsend.Code(err) != 530 {
		t.Fatalf("mail without AUTH: %v, want 530", err)
	}
	for _, auth := range []sasl.Client{sasl.NewPlainClient("", "alice", "wrong"), sasl.NewLoginClient("mallory", "s3cret")} {
		if err := sendAuth(srv.SMTPAddr(), auth, in.EmailAddress, msg); smtpsend.Code(err) != 535 {
			t.Fatalf("bad credentials: %v, want 535", err)
		}
	}
	if err := sendAuth(srv.SMTPAddr(), sasl.NewLoginClient("alice", "s3cret"), in.EmailAddress, msg); err != nil {
		t.Fatalf("good credentials: %v", err)
	}
	if got := smtpUsers(t, a, in.EmailAddress); got["authed"] != "alice" || len(got) != 1 {
		t.Fatalf("stored %v", got)
	}
	var auth535 int
	for _, r := range srv.Refusals() {
		if r.Code == 535 && strings.Contains(r.Reason, "authentication failed") {
			auth535++
		}
	}
	if auth535 != 2 {
		t.Fatalf("refusal log: %v", srv.Refusals())
	}

	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, []byte("alice:plaintext\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Start(t.Context(), server.Config{HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Options: core.Options{APIKey: "k"}, SMTP: smtpd.Settings{AuthFile: bad}}); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a file with a non-bcrypt hash: %v, want an error naming the line", err)
	}
}

// TestSMTPAuthPythonSmtplib: Python's smtplib logs in with PLAIN (its
// login()) and with LOGIN, and the user names are kept.
func TestSMTPAuthPythonSmtplib(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed for this test (apt-get install python3)")
	}
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	host, port, _ := strings.Cut(srv.SMTPAddr(), ":")
	script := `
import smtplib, sys
host, port, to = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def msg(subject):
    return "From: app@example.org\r\nTo: %s\r\nSubject: %s\r\n\r\nhello\r\n" % (to, subject)
with smtplib.SMTP(host, port) as s:
    s.login("py-plain", "pw")
    s.sendmail("app@example.org", [to], msg("python plain"))
with smtplib.SMTP(host, port) as s:
    s.ehlo()
    s.user, s.password = "py-login", "pw"
    code, _ = s.auth("LOGIN", s.auth_login, initial_response_ok=False)
    assert code == 235, code
    s.sendmail("app@example.org", [to], msg("python login"))
`
	out, err := exec.Command(python, "-c", script, host, port, in.EmailAddress).CombinedOutput()
	if err != nil {
		t.Fatalf("smtplib: %v\n%s", err, out)
	}
	want := map[string]string{"python plain": "py-plain", "python login": "py-login"}
	if got := smtpUsers(t, a, in.EmailAddress); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("SMTP users %v, want %v", got, want)
	}
}
