package email

import (
	"strings"
	"testing"

	"sandview/client/linkcheck"
)

// TestPrintLinksCountsWhatWasNotChecked: the summary does not call links
// checked that were not.
func TestPrintLinksCountsWhatWasNotChecked(t *testing.T) {
	var out strings.Builder
	results := []linkcheck.Result{{URL: "https://a.example/", Outcome: linkcheck.Unreachable}, {URL: "https://b.example/", Outcome: linkcheck.NotChecked}, {URL: "https://c.example/", Outcome: linkcheck.Cancelled}}
	if err := printLinks(&out, CheckView{Links: results}); err != nil {
		t.Fatal(err)
	}
	if want := "Links: 3: 0 ok, 0 broken, 1 unreachable, 2 not checked\n"; !strings.Contains(out.String(), want) || strings.Contains(out.String(), "checked:") {
		t.Errorf("summary %q, want %q", out.String(), want)
	}
}
