package ui_test

import (
	"fmt"
	"strings"
	"testing"

	"sandview/model/termtext"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// helpShown scrolls through the help at a screen of width x height and
// returns every line it showed, with what the box looked like.
func helpShown(t *testing.T, width, height int) string {
	t.Helper()
	ctx := tuitest.Context(true)
	h := ui.NewHelpDialog(ctx, "Keys", ctx.Keys.Groups(), "A note under the keys.")
	var seen strings.Builder
	for range 40 {
		box := h.View(width-4, height-2)
		if bw, bh := ui.BlockWidth(box), len(strings.Split(box, "\n")); bw > width-4 || bh > height-2 {
			t.Fatalf("%dx%d: the box is %dx%d", width, height, bw, bh)
		}
		seen.WriteString(tuitest.Plain(box) + "\n")
		if !strings.Contains(tuitest.Plain(box), "% ·") || strings.Contains(tuitest.Plain(box), "100% ·") {
			break
		}
		if _, done := h.HandleKey(tuitest.Key("pgdown")); done {
			t.Fatal("page down closed the help")
		}
	}
	return seen.String()
}

// TestHelpDropsNothing checks that every binding of every group is shown,
// whole, at the small sizes the issue measured, scrolling where needed.
func TestHelpDropsNothing(t *testing.T) {
	ctx := tuitest.Context(true)
	for _, size := range [][2]int{{60, 20}, {80, 24}, {120, 40}, {200, 50}} {
		shown := helpShown(t, size[0], size[1])
		for _, g := range ctx.Keys.Groups() {
			for _, b := range g.Bindings {
				if !strings.Contains(shown, b.Help().Desc) {
					t.Errorf("%dx%d: %q (%s) is not shown", size[0], size[1], b.Help().Desc, b.Help().Key)
				}
			}
		}
		if strings.Contains(shown, "…") {
			t.Errorf("%dx%d: something is cut:\n%s", size[0], size[1], shown)
		}
		if !strings.Contains(shown, "A note under the keys.") {
			t.Errorf("%dx%d: the note is missing", size[0], size[1])
		}
	}
}

// TestHelpUsesTheWidth checks that a wide screen gets several columns and
// no scrolling.
func TestHelpUsesTheWidth(t *testing.T) {
	ctx := tuitest.Context(true)
	h := ui.NewHelpDialog(ctx, "Keys", ctx.Keys.Groups())
	box := tuitest.Plain(h.View(196, 48))
	if strings.Contains(box, "scroll") {
		t.Fatalf("the help scrolls at 200x50:\n%s", box)
	}
	if lines := len(strings.Split(box, "\n")); lines > 24 {
		t.Fatalf("the help is %d lines tall at 200 columns: not reflowed into columns", lines)
	}
	if _, done := h.HandleKey(tuitest.Key("z")); !done {
		t.Fatal("a key that does not scroll did not close the help")
	}
}

// TestKeyLineKeepsTheHelpKey checks that the key line is as wide as the
// terminal, cuts no binding, and always ends with the help key.
func TestKeyLineKeepsTheHelpKey(t *testing.T) {
	ctx := tuitest.Context(true)
	k := ctx.Keys
	bindings := append(k.ListKeyMap.ShortHelp(), k.Search, k.Mark, k.Delete, k.Help)
	for _, width := range []int{24, 40, 80, 200} {
		line := tuitest.Plain(ui.KeyLine(ctx, bindings, width))
		if termtext.Width(line) != width || strings.Contains(line, "…") {
			t.Errorf("width %d: %q", width, line)
		}
		if !strings.HasSuffix(strings.TrimRight(line, " "), "? help") {
			t.Errorf("width %d: the help key is missing: %q", width, line)
		}
	}
	if line := tuitest.Plain(ui.KeyLine(ctx, bindings, 200)); !strings.Contains(line, "/ search") || !strings.Contains(line, "space/x mark") {
		t.Errorf("a wide line leaves bindings out: %q", line)
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 emails", 1: "1 email", 2: "2 emails"} {
		if got := ui.Plural(n, "email", "emails"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLogKeepsTheLastHundred(t *testing.T) {
	ctx := tuitest.Context(true)
	for i := range 130 {
		ctx.Flash(fmt.Sprintf("message %d\x1b[2J", i), ui.LevelError)
	}
	log := ctx.LogEntries()
	if len(log) != ui.LogSize || log[0].Text != "message 30" || log[len(log)-1].Text != "message 129" {
		t.Fatalf("log holds %d entries from %q to %q", len(log), log[0].Text, log[len(log)-1].Text)
	}
	d := ui.NewLogDialog(ctx)
	box := tuitest.Plain(d.View(80, 20))
	tuitest.AssertNoControls(t, box)
	if !strings.Contains(box, "12:00:00 ✗ message 129") {
		t.Fatalf("the newest message is not first, timestamped:\n%s", box)
	}
	if w := ui.BlockWidth(box); w > 80 || termtext.Width(strings.Split(box, "\n")[0]) != w {
		t.Fatalf("the log box is %d wide", w)
	}
}
