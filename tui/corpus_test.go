package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/tui/corpus"
	"sandview/tui/tuitest"
)

// TestCorpusScreensAreWidthExact opens every mail of the corpus in the
// program at four sizes and draws the list, every reader tab, the HTML
// view and the auth report: every line of every screen must be exactly the
// terminal's width by an independent width function (go-runewidth's
// character widths, as wcwidth and tmux lay out), every width function
// must agree on it, and the panes' borders must stand in the same columns
// on every row.
func TestCorpusScreensAreWidthExact(t *testing.T) {
	mails, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{60, 20}, {80, 24}, {120, 40}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			checked := lineChecks{}
			for _, m := range mails {
				h := corpusHarness(t, m, size[0], size[1])
				check := func(what string) {
					t.Helper()
					checked.assertScreenExact(t, m.Name+", "+what, h.view(), size[0], size[1], h.app.bodyTop())
				}
				check("the list")
				h.Press("enter")
				check("the body")
				for i, name := range []string{"headers", "links", "attachments", "raw source", "auth report"} {
					h.Press(fmt.Sprint(i + 2))
					check(name)
				}
				h.Press("1", "h", "end")
				check("the HTML view, scrolled to its end")
				if h.app.width >= 120 { // narrower, a shows the auth tab
					h.Press("a")
					check("the auth pane expanded")
				}
			}
		})
	}
}

// corpusHarness is the program holding one corpus mail (and its raw
// source) in the demo inbox.
func corpusHarness(t *testing.T, m corpus.Mail, width, height int) *harness {
	e := m.Email
	if e.ReceivedAt.IsZero() {
		e.ReceivedAt = tuitest.Now()
	}
	svc := tuitest.NewService(tuitest.Inboxes()...)
	svc.SetEmails(tuitest.DemoAddr, []model.Email{e})
	svc.SetRaw(e.ID, m.Raw)
	return newHarnessOver(t, svc, width, height, true)
}

// borderRunes are the characters of pane borders, rounded and thick.
const borderRunes = "│╭╮╰╯┃┏┓┗┛"

// lineChecks are the cells of the lines checked already: screens repeat
// many lines (blank rows, unchanged panes), each measured once.
type lineChecks map[string][]string

// assertScreenExact checks one screen (see TestCorpusScreensAreWidthExact);
// the panes start at line top.
func (checked lineChecks) assertScreenExact(t *testing.T, what, view string, width, height, top int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Fatalf("%s: %d lines, want %d", what, len(lines), height)
	}
	grid := make([][]string, len(lines))
	for i, line := range lines {
		if c, ok := checked[line]; ok {
			grid[i] = c
			continue
		}
		if d := corpus.WidthDisagreement(line); d != "" {
			t.Fatalf("%s, line %d: %s", what, i, d)
		}
		grid[i] = cells(ansi.Strip(line))
		if len(grid[i]) != width {
			t.Fatalf("%s, line %d is %d cells, want %d: %q", what, i, len(grid[i]), width, ansi.Strip(line))
		}
		checked[line] = grid[i]
	}
	// The columns of the corners in the panes' top border are the columns
	// of the side borders on every row down to the status bar.
	var edges []int
	for x, c := range grid[top] {
		if c == "╭" || c == "╮" || c == "┏" || c == "┓" {
			edges = append(edges, x)
		}
	}
	if len(edges) < 2 {
		t.Fatalf("%s: no pane border on line %d: %q", what, top, strings.Join(grid[top], ""))
	}
	for y := top; y < height-2; y++ {
		for _, x := range edges {
			if c := grid[y][x]; c == "" || !strings.Contains(borderRunes, c) {
				t.Fatalf("%s: line %d has %q where the border of column %d belongs:\n%s", what, y, c, x, strings.Join(grid[y], ""))
			}
		}
	}
}

// cells lays a line out as a wcwidth terminal does: one string per cell,
// a wide character followed by an empty cell, characters of no width
// added to the cell before them (and dropped at the start).
func cells(line string) []string {
	var out []string
	for _, r := range line {
		w := corpus.OracleRuneWidth(r)
		switch {
		case w == 0 && len(out) > 0:
			out[len(out)-1] += string(r)
		case w > 0:
			out = append(out, string(r))
			out = append(out, slices.Repeat([]string{""}, w-1)...)
		}
	}
	return out
}
