package htmltext

import (
	"fmt"
	"strconv"
	"strings"

	glamouransi "charm.land/glamour/v2/ansi"
	"github.com/charmbracelet/x/ansi"

	"sandview/internal/termtext"
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

	// The line being written.
	b           strings.Builder
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
		shown = ansi.Truncate(text, max(cells-1, 0), "") + "…"
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
	style := w.cellStyle()
	if w.styled && style != w.shown {
		if w.shown != (sgr{}) {
			w.b.WriteString("\x1b[m")
		}
		w.b.WriteString(style.sequence())
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
	w.b.WriteString(cluster)
	w.cells += width
	if cluster != " " || w.shows(style) {
		w.keep, w.keepStyled, w.keepLinking = w.b.Len(), w.shown != (sgr{}), w.shownLink != ""
	}
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
	line := w.b.String()[:w.keep]
	if w.keepStyled {
		line += "\x1b[m"
	}
	if w.keepLinking {
		line += ansi.ResetHyperlink()
	}
	w.lines = append(w.lines, line)
	w.b.Reset()
	w.cells, w.keep, w.keepStyled, w.keepLinking = 0, 0, false, false
	w.shown, w.shownLink = sgr{}, ""
}

// sgr is a text style.
type sgr struct {
	bold, faint, italic, underline, reverse, strike bool
	fg, bg                                          string // SGR parameters, "" for the default
}

// apply follows the parameters of an SGR sequence.
func (s *sgr) apply(params string) {
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	if len(ps) == 0 {
		*s = sgr{}
		return
	}
	for i := 0; i < len(ps); i++ {
		n, err := strconv.Atoi(ps[i])
		if err != nil {
			continue
		}
		switch {
		case n == 0:
			*s = sgr{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.faint = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.underline = true
		case n == 7:
			s.reverse = true
		case n == 9:
			s.strike = true
		case n == 22:
			s.bold, s.faint = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.underline = false
		case n == 27:
			s.reverse = false
		case n == 29:
			s.strike = false
		case n >= 30 && n <= 37 || n >= 90 && n <= 97:
			s.fg = ps[i]
		case n == 39:
			s.fg = ""
		case n >= 40 && n <= 47 || n >= 100 && n <= 107:
			s.bg = ps[i]
		case n == 49:
			s.bg = ""
		case n == 38 || n == 48:
			colour, used := extendedColour(ps[i:])
			if n == 38 {
				s.fg = colour
			} else {
				s.bg = colour
			}
			i += used
		}
	}
}

// extendedColour reads "38;5;n" or "38;2;r;g;b" (or 48) from ps and
// returns it and the number of parameters it used after the first.
func extendedColour(ps []string) (string, int) {
	switch {
	case len(ps) >= 3 && ps[1] == "5":
		return strings.Join(ps[:3], ";"), 2
	case len(ps) >= 5 && ps[1] == "2":
		return strings.Join(ps[:5], ";"), 4
	}
	return "", len(ps) - 1
}

// over is s with the attributes and colours set in top.
func (s sgr) over(top sgr) sgr {
	s.bold, s.faint, s.italic = s.bold || top.bold, s.faint || top.faint, s.italic || top.italic
	s.underline, s.reverse, s.strike = s.underline || top.underline, s.reverse || top.reverse, s.strike || top.strike
	if top.fg != "" {
		s.fg = top.fg
	}
	if top.bg != "" {
		s.bg = top.bg
	}
	return s
}

// styleOf is the style a glamour style primitive sets (its attributes,
// and colours written "#RRGGBB").
func styleOf(p glamouransi.StylePrimitive) sgr {
	is := func(b *bool) bool { return b != nil && *b }
	s := sgr{bold: is(p.Bold), faint: is(p.Faint), italic: is(p.Italic), underline: is(p.Underline), reverse: is(p.Inverse), strike: is(p.CrossedOut)}
	rgb := func(c *string, base string) string {
		var r, g, b uint8
		if c == nil || len(*c) != 7 {
			return ""
		}
		if _, err := fmt.Sscanf(*c, "#%02x%02x%02x", &r, &g, &b); err != nil {
			return ""
		}
		return fmt.Sprintf("%s;2;%d;%d;%d", base, r, g, b)
	}
	s.fg, s.bg = rgb(p.Color, "38"), rgb(p.BackgroundColor, "48")
	return s
}

// sequence is the SGR sequence that sets s from the default style.
func (s sgr) sequence() string {
	var ps []string
	for _, a := range []struct {
		on   bool
		code string
	}{{s.bold, "1"}, {s.faint, "2"}, {s.italic, "3"}, {s.underline, "4"}, {s.reverse, "7"}, {s.strike, "9"}, {s.fg != "", s.fg}, {s.bg != "", s.bg}} {
		if a.on {
			ps = append(ps, a.code)
		}
	}
	if len(ps) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(ps, ";") + "m"
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
