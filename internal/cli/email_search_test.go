package cli

import (
	"strings"
	"testing"

	"sandview/model/search"
)

// TestEmailListSearch sends three mails to two inboxes and lists them with
// --search: operators on one inbox, in:all across both, the table and
// JSON outputs, and clear usage errors for a bad query.
func TestEmailListSearch(t *testing.T) {
	h := newCLI(t)
	qa := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	other := decodeJSON[inboxView](t, h.must("inbox", "create", "--plain", "--json")).EmailAddress
	send := func(to, from, subject, text string) {
		h.must("send", "--to", to, "--from", from, "--subject", subject, "--text", text, "--smtp", h.srv.SMTPAddr())
		h.must("wait", "--inbox", to, "--subject", subject, "--timeout", "20s")
	}
	send(qa, "billing@shop.example", "Invoice 42", "your password reset link")
	send(qa, "news@shop.example", "Weekly news", "nothing to reset here")
	send(other, "billing@shop.example", "Invoice 43", "paid")

	got := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", qa, "--search", `from:billing "password reset"`, "--json"))
	if len(got) != 1 || got[0].Subject != "Invoice 42" {
		t.Fatalf("from:billing \"password reset\" found %+v", got)
	}
	if got := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", qa, "--search", "-from:billing", "--json")); len(got) != 1 || got[0].Subject != "Weekly news" {
		t.Fatalf("-from:billing found %+v", got)
	}
	all := decodeJSON[[]emailView](t, h.must("email", "list", "--search", "in:all subject:invoice", "--json"))
	if len(all) != 2 {
		t.Fatalf("in:all subject:invoice found %d emails, want one per inbox", len(all))
	}
	if text := h.must("email", "list", "--search", "in:all is:unread invoice").stdout; !strings.Contains(text, "Invoice 42") || !strings.Contains(text, "Invoice 43") {
		t.Fatalf("table output %q lacks a match", text)
	}
	if none := h.must("email", "list", "--inbox", qa, "--search", "subject:nothing-like-this").stdout; none != search.NoMatches+"\n" {
		t.Fatalf("no match printed %q", none)
	}
	for _, bad := range [][]string{
		{"email", "list", "--inbox", qa, "--search", "is:maybe"},
		{"email", "list", "--inbox", qa, "--search", "in:all invoice"},
	} {
		if r := h.run(bad...); r.code != exitUsage || !strings.Contains(r.stderr, "--search") {
			t.Errorf("%v: exit %d, %q; want a usage error about --search", bad, r.code, r.stderr)
		}
	}
}
