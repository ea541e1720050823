package cli

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"sandview/model"
	"sandview/model/termtext"
)

func TestAuthSummaryWording(t *testing.T) {
	all := func(spf, dkim, dmarc, rdns string) model.AuthResults {
		return model.AuthResults{SPF: &model.SPFResult{Result: spf}, DKIM: []model.DKIMResult{{Result: dkim}},
			DMARC: &model.DMARCResult{Result: dmarc}, ReverseDNS: &model.ReverseDNSResult{Result: rdns}}
	}
	for _, c := range []struct {
		results model.AuthResults
		want    string
	}{
		{all("pass", "pass", "pass", "pass"), "pass (SPF pass, DKIM pass, DMARC pass, reverse DNS pass)"},
		{all("neutral", "fail", "none", "temperror"), "fail (SPF inconclusive, DKIM fail, DMARC no record, reverse DNS inconclusive)"},
		{all("skipped", "skipped", "skipped", "skipped"), "not checked"},
		{all("pass", "skipped", "pass", "pass"), "not verified (SPF pass, DKIM not checked, DMARC pass, reverse DNS pass)"},
		{model.AuthResults{}, "not checked"},
		{all("none", "none", "none", "pass"), "not verified (SPF no record, DKIM not signed, DMARC no record, reverse DNS pass)"},
		{model.AuthResults{DKIM: []model.DKIMResult{{Result: "fail"}, {Result: "pass"}}}, "not verified (DKIM pass)"},
		// The signature that decides the verdict, not the first.
		{model.AuthResults{DKIM: []model.DKIMResult{{Result: "none"}, {Result: "fail"}}}, "fail (DKIM fail)"},
	} {
		if got := authSummary(c.results); got != c.want {
			t.Errorf("authSummary = %q, want %q", got, c.want)
		}
	}
}

func TestTableAlignsByTerminalWidth(t *testing.T) {
	tab := &table{}
	tab.add("SUBJECT", "AUTH")
	for _, subject := range []string{"plain", "日本語の件名 🚀", "e\u0301 accent", "bidi \u202e x"} {
		tab.add(subject, "pass")
	}
	var out bytes.Buffer
	if err := tab.write(&out); err != nil {
		t.Fatal(err)
	}
	assertLastColumnAligned(t, out.String())
}

// assertLastColumnAligned checks that every line's last column (after the
// last run of two spaces) starts at the same terminal column.
func assertLastColumnAligned(t *testing.T, text string) {
	t.Helper()
	column := -1
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		cut := strings.LastIndex(line, "  ")
		if cut < 0 {
			t.Fatalf("line %q has no columns", line)
		}
		at := termtext.Width(line[:cut+2])
		if column >= 0 && at != column {
			t.Fatalf("last column at cell %d in %q, %d above:\n%s", at, line, column, text)
		}
		column = at
	}
}

// testEmail posts to the test-email endpoint of the harness's server.
func (c *cli) testEmail(body map[string]any) {
	c.t.Helper()
	c.expectJSON(http.StatusCreated, "POST", "/api/test/emails", body, nil)
}

// TestCLIListAndShowAuth: the list's columns stay aligned after wide
// subjects and show each mail's recipients; show prints the verdict in
// words, "not checked" for an inbox without checks.
func TestCLIListAndShowAuth(t *testing.T) {
	h := newCLI(t)
	checked := decodeJSON[inboxView](t, h.must("inbox", "create", "--plain", "--json")).EmailAddress
	unchecked := decodeJSON[inboxView](t, h.must("inbox", "create", "--plain", "--no-auth", "--json")).EmailAddress
	h.testEmail(map[string]any{"to": checked, "subject": "日本語の件名 🚀 wide"})
	h.testEmail(map[string]any{"to": checked, "subject": "mixed", "spf": "neutral", "dkim": "fail", "dmarc": "none"})
	h.testEmail(map[string]any{"to": unchecked, "subject": "unchecked"})

	list := h.must("email", "list", "--inbox", checked).stdout
	if !strings.Contains(list, "日本語の件名 🚀 wide") || !strings.Contains(list, "TO") || strings.Count(list, checked) != 2 {
		t.Fatalf("list:\n%s", list)
	}
	assertLastColumnAligned(t, list)

	for _, c := range []struct{ inbox, subject, want string }{
		{checked, "日本語の件名 🚀 wide", "Auth:          pass (SPF pass, DKIM pass, DMARC pass, reverse DNS pass)\n"},
		{checked, "mixed", "Auth:          fail (SPF inconclusive, DKIM fail, DMARC no record, reverse DNS pass)\n"},
		{unchecked, "unchecked", "Auth:          not checked\n"},
	} {
		var id string
		for _, e := range decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", c.inbox, "--json")) {
			if e.Subject == c.subject {
				id = e.ID
			}
		}
		if shown := h.must("email", "show", id, "--inbox", c.inbox).stdout; !strings.Contains(shown, c.want) {
			t.Errorf("show %s:\n%s\nwant %q", c.subject, shown, c.want)
		}
	}
}
