package theme

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestHighlightJSONKeepsTheText(t *testing.T) {
	text := "{\n  \"subject\": \"a ``` fence and \\\"quotes\\\"\",\n  \"n\": 1\n}"
	for _, dark := range []bool{true, false} {
		out := New(dark, false).HighlightJSON(text)
		if !strings.Contains(out, "\x1b[") {
			t.Fatalf("dark=%v: no colour in %q", dark, out)
		}
		plain := strings.TrimRight(ansi.Strip(out), "\n ")
		if plain != text {
			t.Fatalf("dark=%v: text changed:\n%q\nwant\n%q", dark, plain, text)
		}
	}
}

func TestHighlightJSONWithoutColour(t *testing.T) {
	text := `{"a": 1}`
	if out := New(true, true).HighlightJSON(text); out != text {
		t.Fatalf("NO_COLOR output %q, want the text as it is", out)
	}
}

func TestCodeFenceOutlastsBackticks(t *testing.T) {
	if got := codeFence("no ticks"); got != "```" {
		t.Fatalf("codeFence = %q", got)
	}
	if got := codeFence("a ```` b"); got != "`````" {
		t.Fatalf("codeFence = %q, want five backticks", got)
	}
}
