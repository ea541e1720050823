package cli

import (
	"reflect"
	"strings"
	"testing"

	"sandview/client/linkcheck"
)

// TestEmailLinksFlagDeceptive: a link whose text reads
// "https://pay\u200bpal.com/login" (a zero-width space in it) and leads to
// evil.test is flagged by email links and reported by email check; a link
// whose text is its host, and one whose text is no host, are not.
func TestEmailLinksFlagDeceptive(t *testing.T) {
	h := newCLI(t)
	id := sendHTML(t, h, "deceptive", `<p><a href="https://evil.test/x">https://pay&#x200b;pal.com/login</a>
		<a href="https://example.org/docs">example.org</a> <a href="https://example.net/">Read more</a></p>`)
	const warning = "⚠ link goes to evil.test, not paypal.com"
	want := "https://evil.test/x  " + warning + "\nhttps://example.org/docs\nhttps://example.net/\n"
	if got := h.must("email", "links", id).stdout; got != want {
		t.Fatalf("email links:\n%s\nwant:\n%s", got, want)
	}
	run := h.must("email", "links", id, "--json")
	if links := decodeJSON[[]string](t, run); len(links) != 3 || links[0] != "https://evil.test/x" {
		t.Fatalf("email links --json: %v", links)
	}
	if !strings.Contains(run.stderr, "https://evil.test/x: "+warning) || strings.Count(run.stderr, "⚠") != 1 {
		t.Fatalf("email links --json warned %q", run.stderr)
	}
	text := h.must("email", "check", id).stdout
	if !strings.Contains(text, "Deceptive links: 1\n  "+warning+": https://evil.test/x\n") {
		t.Fatalf("email check:\n%s", text)
	}
	v := decodeJSON[checkView](t, h.must("email", "check", id, "--json"))
	if wantD := []linkcheck.Deception{{Link: "https://evil.test/x", Shown: "paypal.com", Real: "evil.test"}}; !reflect.DeepEqual(v.Deceptive, wantD) {
		t.Fatalf("email check --json: deceptive %+v", v.Deceptive)
	}
	addr := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	honest := sendHTMLTo(t, h, addr, "honest", `<p><a href="https://example.org/docs">example.org</a></p>`)
	if text := h.must("email", "check", honest, "--inbox", addr).stdout; !strings.Contains(text, "Deceptive links: none") {
		t.Fatalf("email check of an honest mail:\n%s", text)
	}
}
