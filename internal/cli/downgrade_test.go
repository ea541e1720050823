package cli

import (
	"strings"
	"testing"

	"sandview/client/tamper"
)

// TestCLIRefusesDowngradedMail: a proxy in front of the real server
// strips the encrypted fields of an encrypted inbox's answers and adds
// forged plain ones (a mail claiming every auth check passed). email
// list/show/raw and wait exit 1 with the one generic message and print
// nothing of the forgery.
func TestCLIRefusesDowngradedMail(t *testing.T) {
	h := newCLI(t)
	proxy := tamper.Start(t, h.srv.URL())
	h.url = proxy.URL
	inbox := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	empty := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	h.must("send", "--to", inbox, "--from", "ana@example.org", "--subject", "genuine", "--text", "genuine body", "--smtp", h.srv.SMTPAddr())
	h.must("wait", "--inbox", inbox, "--subject", "genuine", "--timeout", "20s")
	id := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", inbox, "--json"))[0].ID

	for _, mode := range []tamper.Mode{tamper.Downgrade, tamper.PlainAlongside} {
		proxy.SetMode(mode)
		for _, args := range [][]string{
			{"email", "list", "--inbox", inbox},
			{"email", "list", "--inbox", inbox, "--json"},
			{"email", "show", id, "--inbox", inbox},
			{"email", "show", id, "--inbox", inbox, "--json"},
			{"email", "raw", id, "--inbox", inbox},
			{"wait", "--inbox", inbox, "--timeout", "20s"},
		} {
			r := h.run(args...)
			refusedRun(t, mode, args, r)
		}
	}

	// Mail that arrives while a wait is on (stream or sync) is refused too.
	proxy.SetMode(tamper.Downgrade)
	finish := h.startWaiting("wait", "--inbox", empty, "--timeout", "20s")
	h.must("send", "--to", empty, "--from", "ana@example.org", "--subject", "arriving", "--text", "x", "--smtp", h.srv.SMTPAddr())
	refusedRun(t, tamper.Downgrade, []string{"wait (arriving)"}, finish())
	if proxy.Rewritten() == 0 {
		t.Fatal("the proxy rewrote nothing: the test did not tamper")
	}
}

// refusedRun checks a run that met a downgraded mail: exit 1, the generic
// message, nothing forged.
func refusedRun(t *testing.T, mode tamper.Mode, args []string, r cliRun) {
	t.Helper()
	out := r.stdout + r.stderr
	if r.code != exitFailure || !strings.Contains(r.stderr, "decryption failed") {
		t.Fatalf("mode %d, sandview %v: exit %d, stderr %q; want exit 1 and \"decryption failed\"", mode, args, r.code, r.stderr)
	}
	if strings.Contains(out, tamper.ForgedSubject) || strings.Contains(out, tamper.ForgedFrom) || strings.Contains(out, tamper.ForgedText) {
		t.Fatalf("mode %d, sandview %v printed the forgery:\n%s", mode, args, out)
	}
}
