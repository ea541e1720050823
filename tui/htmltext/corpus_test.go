package htmltext

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	glamouransi "charm.land/glamour/v2/ansi"
	"github.com/charmbracelet/x/ansi"

	"sandview/model/termtext"
	"sandview/theme"
	"sandview/tui/corpus"
)

// TestCorpusRendersWithAgreeingWidths lays out the HTML body of every
// corpus mail at four widths, as plain text, in the dark theme with and
// without hyperlinks and without colours, and measures every line: no
// line is wider than the width, every width function agrees on it, and no
// escape sequence but those made here reaches the terminal.
func TestCorpusRendersWithAgreeingWidths(t *testing.T) {
	mails, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	dark, mono := theme.New(true, false).Markdown(), theme.New(true, true).Markdown()
	rendered := 0
	for _, m := range mails {
		if m.Email.HTML == "" {
			continue
		}
		plainPage := Prepare(m.Email.HTML, Options{})
		pages := map[string][2]*Page{}
		for name, style := range map[string]*glamouransi.StyleConfig{"dark": &dark, "mono": &mono} {
			pages[name] = [2]*Page{Prepare(m.Email.HTML, Options{Style: style}), Prepare(m.Email.HTML, Options{Style: style, Hyperlinks: true})}
		}
		for _, width := range []int{28, 56, 80, 196} {
			what := m.Name + " at " + strconv.Itoa(width)
			plain := plainPage.Render(width)
			assertLaidOut(t, what, plain, width)
			if strings.ContainsRune(plain.Text, ansi.ESC) {
				t.Fatalf("%s: an escape sequence in plain text: %q", what, plain.Text)
			}
			assertLinksListed(t, what, plain)
			for name, pair := range pages {
				if name == "mono" && width != 80 { // the layout is the dark one's
					continue
				}
				styled, linked := pair[0].Render(width), pair[1].Render(width)
				assertLaidOut(t, what+" "+name, styled, width)
				assertLaidOut(t, what+" "+name+" with hyperlinks", linked, width)
				if got, want := ansi.Strip(linked.Text), ansi.Strip(styled.Text); got != want {
					t.Fatalf("%s %s: the text with hyperlinks, stripped, differs from the text without:\n%s\n---\n%s", what, name, got, want)
				}
				assertOnlyOwnSequences(t, what+" "+name, linked.Text)
			}
		}
		rendered++
	}
	if rendered < 30 {
		t.Fatalf("only %d corpus mails have HTML", rendered)
	}
}

// assertLaidOut checks the widths of r's lines.
func assertLaidOut(t *testing.T, what string, r Result, width int) {
	t.Helper()
	corpus.AssertWidthsAgree(t, what, r.Text)
	if r.Problem != "" {
		return // plain text, wrapped by the reader
	}
	for _, line := range strings.Split(r.Text, "\n") {
		if w := termtext.Width(ansi.Strip(line)); w > width && !(line == ansi.Strip(line) && !strings.Contains(strings.TrimSpace(line), " ") && (addressPattern.MatchString(line) || slices.Contains(r.Links, line))) { // without a terminal, an address is whole on a line of its own
			t.Fatalf("%s: a line of %d cells: %q", what, w, line)
		}
	}
}

// assertOnlyOwnSequences checks that the only escape sequences are SGR
// and OSC 8 hyperlinks, and that each line closes what it opens.
func assertOnlyOwnSequences(t *testing.T, what, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		rest, lastSGR := line, ""
		for {
			i := strings.IndexByte(rest, ansi.ESC)
			if i < 0 {
				break
			}
			seq, _, n, _ := ansi.DecodeSequence(rest[i:], ansi.NormalState, nil)
			ok := strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") || strings.HasPrefix(seq, "\x1b]8;;") && strings.HasSuffix(seq, "\a")
			if !ok {
				t.Fatalf("%s: escape sequence %q in %q", what, seq, line)
			}
			if strings.HasPrefix(seq, "\x1b[") {
				lastSGR = seq
			}
			rest = rest[i+max(n, 1):]
		}
		if strings.Count(line, "\x1b]8;;") != 2*strings.Count(line, "\x1b]8;;\a") {
			t.Fatalf("%s: line %q leaves a hyperlink open", what, line)
		}
		if lastSGR != "" && lastSGR != "\x1b[m" {
			t.Fatalf("%s: line %q leaves a style open", what, line)
		}
	}
}

// assertLinksListed checks that every numbered link is listed: whole, or
// on a line of its own cut with "…" when it is longer than the line.
func assertLinksListed(t *testing.T, what string, r Result) {
	t.Helper()
	lines := strings.Split(r.Text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i] == "Links:" {
			lines = lines[i:]
			break
		}
	}
	for i, link := range r.Links {
		number := "[" + strconv.Itoa(i+1) + "]"
		found := false
		for j, line := range lines {
			if line == number+" "+link {
				found = true
				break
			}
			if line == number && j+1 < len(lines) {
				next := lines[j+1]
				found = next == link || strings.HasSuffix(next, "…") && strings.HasPrefix(link, strings.TrimSuffix(next, "…"))
				break
			}
		}
		if !found {
			t.Fatalf("%s: link %d %q is not listed", what, i+1, link)
		}
	}
}

// TestPartsAreRewrittenAsOneText lays the Markdown of every corpus mail
// out in two and three parts and checks that the parts' lines, rewritten
// each by a writer of its own, are those a single writer writes for the
// parts joined.
func TestPartsAreRewrittenAsOneText(t *testing.T) {
	mails, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	dark := theme.New(true, false).Markdown()
	split := false
	for _, m := range mails {
		if m.Email.HTML == "" {
			continue
		}
		for _, opts := range []Options{{}, {Style: &dark, Hyperlinks: true}} {
			p := Prepare(m.Email.HTML, opts)
			if p.problem != "" {
				continue
			}
			for _, n := range []int{2, 3} {
				md := hangListItems(p.sizedTokens(56), 56)
				outs, writers, err := p.glamourParts(splitBlocks(md, n), 56)
				if err != nil {
					t.Fatal(err)
				}
				lines, ok := joinLines(writers)
				if !ok {
					continue
				}
				split = split || len(outs) > 1
				links := strings.Count(strings.Join(outs, ""), string(linkStart))
				one := p.lineWriter(56, opts.Hyperlinks && links == len(p.links.targets))
				for _, line := range strings.Split(strings.Join(outs, "\n"), "\n") {
					one.write(line)
				}
				if got, want := strings.Join(lines, "\n"), strings.Join(one.lines, "\n"); got != want {
					t.Fatalf("%s in %d parts:\n%s\n---\n%s", m.Name, n, got, want)
				}
				if got, want := strings.Join(p.rewrite(outs, 56), "\n"), strings.Join(one.lines, "\n"); got != want {
					t.Fatalf("%s in %d parts, rewritten in order:\n%s\n---\n%s", m.Name, n, got, want)
				}
			}
		}
	}
	if !split {
		t.Fatal("no mail of the corpus was laid out and rewritten in parts")
	}
}
