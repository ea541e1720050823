package corpus

import (
	"fmt"
	"strings"
	"testing"

	"sandview/model/termtext"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// wcwidth is the independent oracle: go-runewidth's character widths with
// East Asian ambiguous characters narrow.
var wcwidth = &runewidth.Condition{EastAsianWidth: false}

// OracleRuneWidth is r's width by the oracle.
func OracleRuneWidth(r rune) int { return wcwidth.RuneWidth(r) }

// WidthDisagreement returns "" when every width function measures line
// (which may hold escape sequences) as termtext.Width does, and otherwise
// says which disagree. The functions are x/ansi by grapheme cluster (what
// lipgloss lays out with, and Bubble Tea's cell buffer in mode 2027), x/ansi
// by character (the cell buffer otherwise), the oracle summed by character
// (wcwidth, as tmux advances the cursor) and go-runewidth by cluster (what
// html2text's table writer pads with).
//
// Tabs are expanded to spaces first, as the TUI and lipgloss do before text
// reaches the terminal, and the line is measured again between spaces (as a
// label before it and padding after it put it), which must add 2 cells.
func WidthDisagreement(line string) string {
	line = strings.ReplaceAll(line, "\t", "    ")
	want := termtext.Width(line)
	for _, variant := range []struct {
		text  string
		extra int
	}{{line, 0}, {" " + line + " ", 2}} {
		if d := disagreement(variant.text, want+variant.extra); d != "" {
			return fmt.Sprintf("%+q is %d cells by termtext.Width, but %s", variant.text, want+variant.extra, d)
		}
	}
	return ""
}

// disagreement lists the width functions that do not measure text as want.
func disagreement(text string, want int) string {
	plain := ansi.Strip(text)
	oracle := 0
	for _, r := range plain {
		oracle += wcwidth.RuneWidth(r)
	}
	var diffs []string
	for _, m := range []struct {
		name  string
		width int
	}{
		{"termtext.Width", termtext.Width(text)},
		{"ansi.StringWidth", ansi.StringWidth(text)},
		{"ansi.StringWidthWc", ansi.StringWidthWc(text)},
		{"wcwidth oracle", oracle},
		{"runewidth.StringWidth", wcwidth.StringWidth(plain)},
	} {
		if m.width != want {
			diffs = append(diffs, fmt.Sprintf("%s=%d", m.name, m.width))
		}
	}
	return strings.Join(diffs, ", ")
}

// AssertWidthsAgree fails t unless every line of text measures the same
// by every width function; what names the text in the failure.
func AssertWidthsAgree(t testing.TB, what, text string) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		if d := WidthDisagreement(line); d != "" {
			t.Fatalf("%s, line %d: %s", what, i+1, d)
		}
	}
}
