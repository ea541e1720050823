package htmltext

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sync/errgroup"

	"sandview/model/termtext"
	"sandview/tui/ui"
)

// layout lays the page's Markdown out with glamour at width cells and
// rewrites its lines for the terminal (see lineWriter). Glamour takes its
// time (some 0.3 ms a kilobyte), so the Markdown is cut into a part for
// each processor between its top-level blocks, and each part laid out and
// its lines rewritten at once with the others.
func (p *Page) layout(width int) ([]string, error) {
	parts := splitBlocks(hangListItems(p.sizedTokens(width), width), runtime.GOMAXPROCS(0))
	outs, writers, err := p.glamourParts(parts, width)
	if err != nil {
		return nil, err
	}
	lines, ok := joinLines(writers)
	if !ok {
		lines = p.rewrite(outs, width)
	}
	return tidyBlankLines(lines), nil
}

// glamourParts lays each part of the Markdown out with glamour and
// rewrites its lines by a lineWriter of its own, at once, the link
// numbers of a part following those of the parts before it. A part whose
// layout holds more or fewer links than its Markdown has no writer: the
// numbers of the parts after it would be wrong.
func (p *Page) glamourParts(parts []string, width int) ([]string, []*lineWriter, error) {
	counts, firstLink := make([]int, len(parts)), make([]int, len(parts))
	links := 0
	for i, part := range parts {
		counts[i] = strings.Count(part, string(linkStart))
		firstLink[i], links = links, links+counts[i]
	}
	hyperlinks := p.hyperlinked(links)
	outs := make([]string, len(parts))
	writers := make([]*lineWriter, len(parts))
	var g errgroup.Group
	for i, part := range parts {
		g.Go(func() error {
			r, err := glamour.NewTermRenderer(glamour.WithStyles(p.styleOf()), glamour.WithWordWrap(width), glamour.WithTableWrap(true),
				glamour.WithPreservedNewLines()) // the converter writes a paragraph on one line, and <br> as a break
			if err != nil {
				return fmt.Errorf("starting glamour: %w", err)
			}
			outs[i], err = r.Render(part)
			if err != nil {
				return fmt.Errorf("laying out: %w", err)
			}
			if strings.Count(outs[i], string(linkStart)) != counts[i] {
				return nil
			}
			w := p.lineWriter(width, hyperlinks)
			w.next = firstLink[i]
			for _, line := range strings.Split(outs[i], "\n") {
				w.write(line)
			}
			writers[i] = w
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return outs, writers, nil
}

// hyperlinked reports whether a layout holding links link marks writes
// them as OSC 8 hyperlinks: when asked for, styled, and only when the
// marks are as many as the page's links (their numbers are then right).
func (p *Page) hyperlinked(links int) bool {
	return p.opts.Hyperlinks && p.opts.Style != nil && links == len(p.links.targets)
}

// joinLines joins the lines of the parts' writers; ok is false when a
// part has no writer or leaves its writer in a state the next part's does
// not start from (a style or link still open).
func joinLines(writers []*lineWriter) (lines []string, ok bool) {
	for i, w := range writers {
		if w == nil || i < len(writers)-1 && !w.settled() {
			return nil, false
		}
		lines = append(lines, w.lines...)
	}
	return lines, true
}

// rewrite rewrites the lines of glamour's parts for the terminal, in
// order, by a single lineWriter.
func (p *Page) rewrite(outs []string, width int) []string {
	text := strings.Join(outs, "\n")
	hyperlinks := p.hyperlinked(strings.Count(text, string(linkStart)))
	w := p.lineWriter(width, hyperlinks)
	for _, line := range strings.Split(text, "\n") {
		w.write(line)
	}
	return w.lines
}

// lineWriter is a writer of glamour's lines at width, starting at the
// page's first link.
func (p *Page) lineWriter(width int, hyperlinks bool) *lineWriter {
	w := &lineWriter{width: width, styled: p.opts.Style != nil, hyperlinks: hyperlinks, targets: p.links.targets, addresses: p.links.addresses}
	if p.opts.Style != nil {
		w.linkStyle = styleOf(p.opts.Style.LinkText)
	}
	return w
}

// splitBlocks cuts Markdown into at most n parts of about the same size,
// between top-level blocks: at a blank line followed by a line that starts
// a paragraph or heading (not a list, quote, table, code or indented
// line), outside code fences.
func splitBlocks(md string, n int) []string {
	if n <= 1 || len(md) < 8<<10 {
		return []string{md}
	}
	target := len(md) / n
	var parts []string
	start, fenced := 0, false
	for pos := 0; pos < len(md); {
		end := strings.IndexByte(md[pos:], '\n')
		if end < 0 {
			break
		}
		line := md[pos : pos+end]
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
		}
		next := pos + end + 1
		if !fenced && line == "" && next < len(md) && next-start >= target && len(parts) < n-1 && !strings.ContainsRune(" \t-*+>|`~0123456789", rune(md[next])) {
			parts = append(parts, md[start:next])
			start = next
		}
		pos = next
	}
	return append(parts, md[start:])
}

// sizedTokens is the page's Markdown with the token of each address in
// the text padded to the cells the address will take: all of them when it
// fits in the width left by the lists and quotes around it (less one: a
// word as wide as the line makes glamour start the next with a space),
// else that width (it is then cut with "…").
func (p *Page) sizedTokens(width int) string {
	if len(p.links.addresses) == 0 {
		return p.markdown
	}
	var b strings.Builder
	md := p.markdown
	for {
		start := strings.IndexRune(md, addressMark)
		if start < 0 {
			break
		}
		end := strings.IndexRune(md[start+1:], addressMark)
		if end < 0 {
			break
		}
		b.WriteString(md[:start])
		i, ok := tokenNumber(md[start+1 : start+1+end])
		if ok && i < len(p.links.addresses) {
			a := p.links.addresses[i]
			b.WriteString(token(i, min(termtext.Width(a.text), addressRoom(width, a))))
		}
		md = md[start+1+end+1:]
	}
	b.WriteString(md)
	return b.String()
}

// addressRoom is the most cells address a may take at width: the width
// left by the lists and quotes around it, less one; in a data table, an
// even share of the width less the rules between the columns and room for
// the sentinels around the token, which the table writer's wrapping counts
// as cells (it would break the token, and the table, if it were wider).
func addressRoom(width int, a address) int {
	room := width - 1 - 4*a.nesting
	if a.columns > 0 {
		room = min(room, (width-3*a.columns)/a.columns-5)
	}
	return max(room, 1)
}

// referenceList writes "[n] address" lines at width cells to b, each
// after a line break: an address too long for the line goes on a line of
// its own, cut with "…" when longer than that (unless whole is set: for
// output without a terminal, where the cut address would be lost), and is
// hyperlinked whole.
func referenceList(b *strings.Builder, targets []string, width int, hyperlinks, whole bool) {
	for i, target := range targets {
		if target == "" { // not referred to in the text
			continue
		}
		number := strconv.Itoa(i + 1)
		b.WriteString("\n[")
		b.WriteString(number)
		b.WriteByte(']')
		shown := target
		tw := termtext.Width(target)
		if len(number)+3+tw <= width { // "[n] "
			b.WriteByte(' ')
			writeLink(b, target, shown, hyperlinks)
			continue
		}
		if tw > width && !whole {
			shown = cutCells(target, width-1) + "…"
		}
		b.WriteByte('\n')
		writeLink(b, target, shown, hyperlinks)
	}
}

// referenceListSize is about the length referenceList writes.
func referenceListSize(targets []string, hyperlinks bool) int {
	size := 0
	for _, target := range targets {
		if target != "" {
			size += len(target) + 16 // with its number, and a line break if cut
			if hyperlinks {
				size += len(target) + 16
			}
		}
	}
	return size
}

// cutCells is the start of s that takes at most n cells.
func cutCells(s string, n int) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f { // not only printable ASCII, a cell a byte
			return ansi.Truncate(s, n, "")
		}
	}
	return s[:min(n, len(s))]
}

// writeLink writes text as a hyperlink to target, or as it is.
func writeLink(b *strings.Builder, target, text string, hyperlinks bool) {
	if hyperlinks {
		ui.WriteHyperlink(b, target, text)
		return
	}
	b.WriteString(text)
}

// tidyBlankLines keeps at most one blank line in a row, and none at the
// start or end.
func tidyBlankLines(lines []string) []string {
	out := lines[:0]
	blank := true
	for _, line := range lines {
		if line == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, line)
		blank = false
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
