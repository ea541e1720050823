package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCLIWaitExtract: wait --extract prints only the value and fails when a
// mail has none; a timeout names what was waited for; email show --json
// and wait --json carry the mail's codes and links.
func TestCLIWaitExtract(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	smtp := h.srv.SMTPAddr()
	h.must("send", "--to", address, "--subject", "Confirm your account", "--smtp", smtp,
		"--text", "Welcome! Your verification code is 739201.\nhttps://app.example/confirm?token=42")
	h.must("send", "--to", address, "--subject", "Newsletter", "--smtp", smtp, "--text", "Nothing to see")

	for _, c := range []struct{ extract, want string }{
		{"link", "https://app.example/confirm?token=42\n"},
		{"code", "739201\n"},
		{`token=(\d+)`, "42\n"},
		{`verification \w+`, "verification code\n"},
	} {
		r := h.run("wait", "--inbox", address, "--subject", "^Confirm", "--timeout", "5s", "--extract", c.extract)
		if r.code != 0 || r.stdout != c.want {
			t.Errorf("--extract %s: exit %d, stdout %q (want %q), stderr %q", c.extract, r.code, r.stdout, c.want, r.stderr)
		}
	}

	r := h.run("wait", "--inbox", address, "--subject", "^Newsletter", "--timeout", "5s", "--extract", "code")
	if r.code != exitFailure || r.stdout != "" || !strings.Contains(r.stderr, `no one-time code in the email "Newsletter"`) {
		t.Errorf("no code in the mail: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = h.run("wait", "--inbox", address, "--to", "nobody@example.org", "--subject", "^Never", "--timeout", "300ms", "--extract", "link")
	if r.code != exitTimeout || r.stdout != "" ||
		!strings.Contains(r.stderr, `fewer than 1 email(s) to nobody@example.org with a subject matching "^Never" arrived in `+address) {
		t.Errorf("timeout: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"--extract", "(unclosed"},
		{"--extract", "code", "--json"},
	} {
		if r := h.run(append([]string{"wait", "--inbox", address}, args...)...); r.code != exitUsage || !strings.Contains(r.stderr, "--extract") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}

	type codesAndLinks struct {
		ID    string    `json:"id"`
		Codes *[]string `json:"codes"`
		Links []string  `json:"links"`
	}
	waited := decodeJSON[[]codesAndLinks](t, h.must("wait", "--inbox", address, "--subject", "^Confirm", "--json"))
	if len(waited) != 1 || waited[0].Codes == nil || strings.Join(*waited[0].Codes, ",") != "739201" ||
		strings.Join(waited[0].Links, ",") != "https://app.example/confirm?token=42" {
		t.Fatalf("wait --json: %+v", waited)
	}
	shown := decodeJSON[codesAndLinks](t, h.must("email", "show", waited[0].ID, "--inbox", address, "--json"))
	if shown.Codes == nil || strings.Join(*shown.Codes, ",") != "739201" || len(shown.Links) != 1 {
		t.Fatalf("email show --json: %+v", shown)
	}
	newsletter := decodeJSON[[]codesAndLinks](t, h.must("wait", "--inbox", address, "--subject", "^Newsletter", "--json"))
	if len(newsletter) != 1 || newsletter[0].Codes == nil || len(*newsletter[0].Codes) != 0 {
		raw, _ := json.Marshal(newsletter)
		t.Fatalf("a mail without codes must carry codes: []: %s", raw)
	}
}
