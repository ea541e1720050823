package tuitest

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// Rendered is a view downsampled to a fixed colour profile (ANSI 256), as
// golden files hold it.
func Rendered(t testing.TB, view string) string {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.ANSI256}
	if _, err := w.WriteString(view); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// Plain is a view without its styling.
func Plain(view string) string { return sgr.ReplaceAllString(view, "") }

// RequireSize fails unless view is exactly height lines of exactly width
// cells each.
func RequireSize(t testing.TB, view string, width, height int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Fatalf("view is %d lines, want %d:\n%s", len(lines), height, Plain(view))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != width {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, w, width, Plain(l))
		}
	}
}

// RequireGolden checks a pane's view: exactly width x height, equal to the
// golden file of the test (go test -update rewrites it).
func RequireGolden(t testing.TB, view string, width, height int) {
	t.Helper()
	RequireSize(t, view, width, height)
	golden.RequireEqual(t, Rendered(t, view))
}

// AssertNoControls fails when s holds escape, C0 (other than newline), C1
// or bidi control characters.
func AssertNoControls(t testing.TB, s string) {
	t.Helper()
	for i, r := range s {
		bad := (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
		if bad {
			lo, hi := max(i-30, 0), min(i+30, len(s))
			t.Fatalf("control character %U at byte %d: %q", r, i, s[lo:hi])
		}
	}
}
