package htmltext

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"

	"sandview/model/termtext"
	"sandview/tui/ui"
)

// lineWriter rewrites the lines glamour wrote, cell by cell, into the lines
// shown: it follows glamour's styles (SGR) and writes them again as one
// sequence where they change, drops every other escape sequence (glamour
// makes hyperlinks of its own for addresses it finds), turns the sentinels
// into hyperlinks and dim text, puts the addresses in place of their
// tokens, trims the padding that ends each line and breaks a line that
// would be wider than width (tables and code blocks are not wrapped by
// glamour). Each line it writes opens and closes its own style and
// hyperlink.
type lineWriter struct {
	width      int
	styled     bool // write styles; else plain text
	hyperlinks bool
	targets    []string
	addresses  []address
	linkStyle  sgr // added to the style of a link's text
	lines      []string

	// The state of glamour's text where it has been read to.
	style  sgr
	dim    bool
	inLink bool   // in a link's text
	link   string // the OSC 8 target of the link being read, if any
	next   int    // the next target
	// inToken: reading the rest of a token broken over two lines, which
	// brokenToken says the line being read holds.
	inToken, brokenToken bool
	// afterToken: the last cell read is that of a token; leadingSpace: so
	// was the last of the line before, whose wrapping glamour may start
	// with the space that followed the token.
	afterToken, leadingSpace bool

	// The line being written (its buffer kept from line to line).
	b           bytes.Buffer
	cells       int
	shown       sgr    // the style written last
	shownLink   string // the hyperlink written last
	keep        int    // the length of b up to its last cell that shows
	keepStyled  bool   // the style at keep is not the default one
	keepLinking bool   // a hyperlink is open at keep
}

// write reads one line of glamour's output.
func (w *lineWriter) write(line string) {
	text := strings.TrimRight(line, " ") // glamour pads each line to the width
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ansi.ESC:
			seq, _, n, _ := ansi.DecodeSequence(text[i:], ansi.NormalState, nil)
			w.escape(seq)
			i += max(n, 1)
			continue
		case c == linkStart:
			w.inLink = true
			if w.hyperlinks && w.next < len(w.targets) {
				w.link = ui.HyperlinkTarget(w.targets[w.next])
			}
			w.next++
		case c == linkEnd:
			w.inLink, w.link = false, ""
		case c == dimStart:
			w.dim = true
		case c == dimEnd:
			w.dim = false
		case c == addressMark:
			i += w.address(text[i:])
			continue
		case c == '\t':
			for range 4 {
				w.cell(" ", 1)
			}
		case c < 0x20 || c == 0x7f:
			// no other control reaches the terminal
		case c < 0x80 && (i+1 == len(text) || text[i+1] < 0x80):
			if n := w.run(text[i:]); n > 0 {
				i += n
				continue
			}
			w.cell(text[i:i+1], 1)
		default:
			cluster, width := ansi.FirstGraphemeCluster(text[i:], ansi.GraphemeWidth)
			n := max(len(cluster), 1)
			if cluster == "\u00a0" {
				cluster = " "
			}
			if cluster != "" {
				w.cell(cluster, width)
			}
			i += n
			continue
		}
		i++
	}
	w.spaces(len(line) - len(text))
	w.endLine()
	w.inToken, w.brokenToken = w.brokenToken, false
	w.leadingSpace, w.afterToken = w.afterToken, false
}

// spaces writes n spaces, as n cells of " " would be written; spaces that
// do not show in the style they are in (the padding that ends glamour's
// lines) are only counted, as they would be trimmed.
func (w *lineWriter) spaces(n int) {
	if w.shows(w.cellStyle()) {
		for range n {
			w.cell(" ", 1)
		}
		return
	}
	for ; n > 0; n-- {
		if w.leadingSpace {
			w.leadingSpace = false
			if w.cells == 0 {
				continue
			}
		}
		if w.cells+1 > w.width && w.cells > 0 {
			w.endLine()
		}
		w.cells++
	}
}

// settled tells whether the writer is back in the state it starts in
// (but for the links it has numbered), as it is between blocks.
func (w *lineWriter) settled() bool {
	return w.style == sgr{} && !w.dim && !w.inLink && w.link == "" && !w.inToken && !w.leadingSpace
}

// escape follows an escape sequence of glamour's: SGR changes the style,
// everything else is dropped.
func (w *lineWriter) escape(seq string) {
	if strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") {
		w.style.apply(seq[2 : len(seq)-1])
	}
}

// address writes the address of the token at the start of s and returns
// the length of the token read. The address takes the cells of its token,
// cut with "…" when it is longer. A token broken over two lines (glamour
// breaks words longer than its width) writes its address cut to the first
// line; the rest of the token is blanked. Without a terminal (no style) an
// address outside tables is written whole, wider than the line if need be:
// it is on a line of its own then.
func (w *lineWriter) address(s string) int {
	if w.inToken { // the closing mark of a broken token
		w.inToken, w.leadingSpace = false, w.cells == 0
		return 1
	}
	n := 1
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'j' || s[n] == 'x') {
		n++
	}
	cells := n - 1
	closed := n < len(s) && s[n] == addressMark
	if closed {
		n++
	}
	w.brokenToken = w.brokenToken || !closed
	i, ok := tokenNumber(s[1:])
	if !ok || i >= len(w.addresses) {
		return n
	}
	text := w.addresses[i].text
	shown := text
	if tw := termtext.Width(text); tw > cells {
		if !w.styled && w.addresses[i].columns == 0 { // no terminal: whole, wider than the line
			w.b.WriteString(text)
			w.cells += tw
			w.keep, w.afterToken = w.b.Len(), closed
			return n
		}
		shown = cutCells(text, max(cells-1, 0)) + "…"
	}
	link := w.link
	if w.hyperlinks && link == "" {
		w.link = ui.HyperlinkTarget(text)
	}
	for _, cluster := range clusters(shown) {
		w.cell(cluster.text, cluster.width)
	}
	w.link = link
	w.afterToken = closed
	return n
}

// cell writes one grapheme cluster of width cells, on a new line when the
// line is full.
func (w *lineWriter) cell(cluster string, width int) {
	if cluster != " " {
		w.afterToken = false
	}
	if w.leadingSpace {
		w.leadingSpace = false
		if cluster == " " && w.cells == 0 {
			return
		}
	}
	if w.inToken {
		switch {
		case cluster == "x" || cluster >= "a" && cluster <= "j":
			cluster = " " // keeps the columns of a table
		case cluster != " ": // the token ended without its mark
			w.inToken = false
		}
	}
	if w.cells+width > w.width && w.cells > 0 {
		w.endLine()
	}
	style := w.pen()
	if w.cells == 0 && cluster[0] >= utf8.RuneSelf && joinsSpace(cluster) {
		// A lone mark or modifier starting the line would join a space
		// put before it (padding, a border's margin): it stands alone.
		w.b.WriteString("\u200b")
	}
	w.b.WriteString(cluster)
	w.cells += width
	if cluster != " " || w.shows(style) {
		w.keep, w.keepStyled, w.keepLinking = w.b.Len(), w.shown != (sgr{}), w.shownLink != ""
	}
}

// joinsSpace reports whether cluster, written after a space, would join
// it into one grapheme cluster.
func joinsSpace(cluster string) bool {
	g := graphemes.FromString(" " + cluster)
	return g.Next() && g.End() > 1
}

// run writes the printable ASCII characters that start s, as cell would
// one by one, when they fit on the line and no token or leading space
// asks for more; it returns how many it wrote (none otherwise). The
// character before one that is not ASCII is left to cell, as a combining
// mark may follow it.
func (w *lineWriter) run(s string) int {
	if w.inToken || w.leadingSpace {
		return 0
	}
	n := 0
	for n < len(s) && s[n] >= 0x20 && s[n] < 0x7f {
		n++
	}
	if n < len(s) && s[n] >= 0x80 {
		n--
	}
	if n <= 1 || w.cells+n > w.width {
		return 0
	}
	s = s[:n]
	style := w.pen()
	w.b.WriteString(s)
	w.cells += n
	if w.shows(style) {
		w.keep = w.b.Len()
	} else if shown := strings.TrimRight(s, " "); shown != "" {
		w.keep = w.b.Len() - (n - len(shown))
	} else {
		return n // spaces only: as before, and no token ends
	}
	w.keepStyled, w.keepLinking = w.shown != (sgr{}), w.shownLink != ""
	w.afterToken = false
	return n
}

// pen writes the sequences that set the style and the hyperlink of the
// next cell where they change, and returns that style.
func (w *lineWriter) pen() sgr {
	style := w.cellStyle()
	if w.styled && style != w.shown {
		if w.shown != (sgr{}) {
			w.b.WriteString("\x1b[m")
		}
		style.writeSequence(&w.b)
		w.shown = style
	}
	if w.link != w.shownLink {
		if w.shownLink != "" {
			w.b.WriteString(ansi.ResetHyperlink())
		}
		if w.link != "" {
			w.b.WriteString(ansi.SetHyperlink(w.link))
		}
		w.shownLink = w.link
	}
	return style
}

// cellStyle is the style of the next cell.
func (w *lineWriter) cellStyle() sgr {
	style := w.style
	if w.dim {
		style.faint = true
	}
	if w.inLink {
		style = style.over(w.linkStyle)
	}
	return style
}

// shows tells whether a space in style shows (is kept at the end of a
// line).
func (w *lineWriter) shows(style sgr) bool {
	return style.bg != "" || style.reverse || style.underline || style.strike
}

// endLine ends the line being written, trimming what follows its last
// cell that shows.
func (w *lineWriter) endLine() {
	w.b.Truncate(w.keep)
	if w.keepStyled {
		w.b.WriteString("\x1b[m")
	}
	if w.keepLinking {
		w.b.WriteString(ansi.ResetHyperlink())
	}
	w.lines = append(w.lines, w.b.String())
	w.b.Reset()
	w.cells, w.keep, w.keepStyled, w.keepLinking = 0, 0, false, false
	w.shown, w.shownLink = sgr{}, ""
}

// cluster is a grapheme cluster and its width.
type cluster struct {
	text  string
	width int
}

// clusters splits text into grapheme clusters.
func clusters(text string) []cluster {
	var out []cluster
	for text != "" {
		c, w := ansi.FirstGraphemeCluster(text, ansi.GraphemeWidth)
		if c == "" {
			break
		}
		out = append(out, cluster{c, w})
		text = text[len(c):]
	}
	return out
}
