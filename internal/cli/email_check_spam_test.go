package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/spamd/spamdtest"
)

const spammyHTML = `<p>Buy cheap viagra now!!! 100% FREE, click <a href="http://bit.ly/x">here</a></p>`

// TestEmailCheckSpam: a server with --spamd (a real spamd on loopback)
// scores the mail at ingest; email check shows the score and the rules
// that fired, inside the encrypted inbox's payload.
func TestEmailCheckSpam(t *testing.T) {
	addr := spamdtest.Start(t)
	h := newCLI(t, func(c *server.Config) { c.Spamd, c.SpamdBudget = addr, 2*time.Minute })
	inbox := decodeJSON[inboxView](t, h.must("inbox", "create", "--json"))
	if !inbox.Encrypted {
		t.Fatal("the inbox is not encrypted")
	}
	id := sendHTMLTo(t, h, inbox.EmailAddress, "Buy cheap viagra", spammyHTML)
	v := decodeJSON[checkView](t, h.must("email", "check", id, "--json"))
	if v.Spam == nil || v.Spam.Status != "analyzed" || v.Spam.RequiredScore != 5 || len(v.Spam.Rules) == 0 {
		t.Fatalf("spam analysis: %+v", v.Spam)
	}
	// The rules describe the content: nothing of them is readable on the
	// wire of an encrypted inbox; a plain inbox carries them in parsed.
	if record := emailRecord(t, h, inbox.EmailAddress, id); strings.Contains(record, "spamAnalysis") || strings.Contains(record, v.Spam.Rules[0].Name) {
		t.Fatalf("the encrypted inbox's record shows the spam analysis:\n%s", record)
	}
	plain := decodeJSON[inboxView](t, h.must("inbox", "create", "--plain", "--json")).EmailAddress
	plainID := sendHTMLTo(t, h, plain, "Buy cheap viagra", spammyHTML)
	var rec struct{ Parsed string }
	if err := json.Unmarshal([]byte(emailRecord(t, h, plain, plainID)), &rec); err != nil {
		t.Fatal(err)
	}
	if parsed, _ := base64.StdEncoding.DecodeString(rec.Parsed); !strings.Contains(string(parsed), `"spamAnalysis":{"status":"analyzed"`) {
		t.Fatalf("the plain inbox's parsed content:\n%s", parsed)
	}
	text := h.must("email", "check", id, "--inbox", inbox.EmailAddress).stdout
	if !strings.Contains(text, "Spam score: ") || !strings.Contains(text, "5.0 required") || !strings.Contains(text, v.Spam.Rules[0].Name) {
		t.Fatalf("email check:\n%s", text)
	}
}

// TestEmailCheckSpamUnavailable: without --spamd the check says how to
// turn scoring on; with a spamd that never answers the mail is stored
// within the budget, and the check says why it has no score.
func TestEmailCheckSpamUnavailable(t *testing.T) {
	h := newCLI(t)
	id := sendHTML(t, h, "no spamd", "<p>hi</p>")
	if text := h.must("email", "check", id).stdout; !strings.Contains(text, "Spam score: not scored: the server does not run SpamAssassin (start it with sandview serve --spamd HOST:PORT)") {
		t.Fatalf("without spamd:\n%s", text)
	}

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close() // never answers
		}
	}()
	h = newCLI(t, func(c *server.Config) { c.Spamd, c.SpamdBudget = silent.Addr().String(), 300*time.Millisecond })
	id = sendHTML(t, h, "slow spamd", "<p>hi</p>")
	v := decodeJSON[checkView](t, h.must("email", "check", id, "--json"))
	if v.Spam == nil || v.Spam.Status != "error" || !strings.Contains(v.Spam.Info, "did not answer within 300ms") {
		t.Fatalf("slow spamd: %+v", v.Spam)
	}
	if text := h.must("email", "check", id).stdout; !strings.Contains(text, "Spam score: not scored: spamd at ") {
		t.Fatalf("slow spamd:\n%s", text)
	}
}

// emailRecord is the email record the server serves, as JSON.
func emailRecord(t *testing.T, h *cli, address, id string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.srv.URL()+"/api/inboxes/"+address+"/emails/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", h.srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET email: %d %v\n%s", resp.StatusCode, err, body)
	}
	return string(body)
}

// TestEmailExpectSpam: with a real spamd scoring the mail, --max-spam
// passes at the mail's score and fails under it, saying the score.
func TestEmailExpectSpam(t *testing.T) {
	addr := spamdtest.Start(t)
	h := newCLI(t, func(c *server.Config) { c.Spamd, c.SpamdBudget = addr, 2*time.Minute })
	id := sendHTML(t, h, "Buy cheap viagra", spammyHTML)
	v := decodeJSON[checkView](t, h.must("email", "check", id, "--json"))
	if v.Spam == nil || v.Spam.Status != "analyzed" {
		t.Fatalf("spam analysis: %+v", v.Spam)
	}
	score := strconv.FormatFloat(v.Spam.Score, 'f', -1, 64)
	if got := outcomes(expectReport(t, h, 1, id, "--max-spam", score)); got["spam"] != "pass" {
		t.Errorf("--max-spam %s: %v", score, got)
	}
	under := strconv.FormatFloat(v.Spam.Score-0.5, 'f', -1, 64)
	if got := outcomes(expectReport(t, h, 1, id, "--max-spam", under)); !strings.HasPrefix(got["spam"], "fail: "+fmt.Sprintf("%.1f points", v.Spam.Score)) {
		t.Errorf("--max-spam %s: %v", under, got)
	}
}
