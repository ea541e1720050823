package ui

import (
	"strings"
	"unicode/utf8"

	"sandview/model/termtext"

	"github.com/charmbracelet/x/ansi"
)

// TabWidth is how many spaces a tab becomes before text is laid out.
const TabWidth = 4

// Wrap wraps text (sanitized, and possibly styled) to width cells and
// returns its lines; see WrapHanging.
func Wrap(text string, width int) []string { return WrapHanging(text, width, width) }

// WrapHanging wraps text to lines of at most first cells for the first
// line of each paragraph and rest cells for the lines that continue it
// (the caller indents those). Tabs become TabWidth spaces. A line breaks
// at a run of spaces, which is dropped, else after a hyphen, else between
// two grapheme clusters: nothing but the spaces at breaks is lost, and a
// cluster is never split. A mail address (a word holding an @) is not
// broken at its hyphens. A URL (a word holding "://", or starting with
// "mailto:") is never broken: it starts a new line when it does not fit
// on the current one, and one longer than a line is shown alone on its
// line, cut with "…" (a hyperlink around it stays whole, so the URL can
// still be followed). Escape sequences take no cells; a style (SGR)
// or hyperlink (OSC 8) open at a break is closed at the end of the line
// and opened again at the start of the next, so each line stands alone.
// Widths are termtext.Width's.
func WrapHanging(text string, first, rest int) []string {
	first, rest = max(first, 1), max(rest, 1)
	text = strings.ReplaceAll(text, "\t", strings.Repeat(" ", TabWidth))
	var out []string
	var scratch []piece
	for _, line := range strings.Split(text, "\n") {
		// No character takes more cells than its UTF-8 bytes.
		if len(line) <= first || termtext.Width(line) <= first {
			out = append(out, line)
			continue
		}
		width := first
		for line != "" {
			chunk := nextChunk(line)
			line = line[len(chunk):]
			scratch = pieces(chunk, scratch[:0])
			out = wrapLine(out, chunk, scratch, width, rest)
			width = rest
		}
	}
	return out
}

// maxChunk bounds the part of a line laid out at once: a line of
// megabytes (a mail without line breaks) is wrapped a chunk after the
// other, each continuing the one before, so its pieces never take more
// than a chunk's worth of memory. A style or hyperlink open across a
// chunk's end is not carried over.
const maxChunk = 64 << 10

// nextChunk is the first chunk of line: all of it when short, else up to
// its last space within maxChunk bytes, else up to a character's start.
func nextChunk(line string) string {
	if len(line) <= maxChunk {
		return line
	}
	if i := strings.LastIndexByte(line[:maxChunk], ' '); i > maxChunk/2 {
		return line[:i+1]
	}
	n := maxChunk
	for n > 0 && !utf8.RuneStart(line[n]) {
		n--
	}
	return line[:n]
}

// piece is a grapheme cluster or an escape sequence of a line.
type piece struct {
	start, end int
	width      int
	space      bool // a plain space
	hyphen     bool // a hyphen-minus
	escape     bool
	url        bool // part of a URL, which is never broken
	address    bool // part of a mail address, not broken at its hyphens
}

// pieces appends the grapheme clusters and escape sequences of a line to
// out.
func pieces(line string, out []piece) []piece {
	first := len(out)
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ansi.ESC:
			n := escapeLength(line[i:])
			out = append(out, piece{start: i, end: i + n, escape: true})
			i += n
		case c >= 0x20 && c < 0x7f && (i+1 == len(line) || line[i+1] < 0x80):
			// Printable ASCII not followed by a mark is a cluster alone.
			out = append(out, piece{start: i, end: i + 1, width: 1, space: c == ' ', hyphen: c == '-'})
			i++
		default:
			cluster, w := ansi.FirstGraphemeCluster(line[i:], ansi.GraphemeWidth)
			n := max(len(cluster), 1)
			out = append(out, piece{start: i, end: i + n, width: w, space: cluster == " ", hyphen: cluster == "-"})
			i += n
		}
	}
	markURLs(line, out[first:])
	return out
}

// markURLs marks the pieces of each word (a run of pieces that are not
// spaces) that is a URL: one whose text, escape sequences left out, holds
// "://" or starts with "mailto:"; and of each other word holding an @ (a
// mail address).
func markURLs(line string, ps []piece) {
	var scratch []byte
	for start := 0; start < len(ps); {
		if ps[start].space {
			start++
			continue
		}
		end, escapes := start, false
		for ; end < len(ps) && !ps[end].space; end++ {
			escapes = escapes || ps[end].escape
		}
		word := line[ps[start].start:ps[end-1].end]
		if escapes {
			scratch = scratch[:0]
			for _, p := range ps[start:end] {
				if !p.escape {
					scratch = append(scratch, line[p.start:p.end]...)
				}
			}
			word = string(scratch)
		}
		url := strings.Contains(word, "://") || isMailto(strings.TrimLeft(word, "<(\"'["))
		address := !url && strings.IndexByte(word, '@') >= 0
		for i := start; i < end; i++ {
			ps[i].url, ps[i].address = url, address
		}
		start = end
	}
}

// isMailto reports whether s starts with "mailto:", in any case.
func isMailto(s string) bool {
	return len(s) >= 7 && strings.EqualFold(s[:7], "mailto:")
}

// escapeLength is the length of the escape sequence at the start of s: a
// CSI runs to its final byte, an OSC to BEL or ST, others are two bytes.
func escapeLength(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']':
		for i := 2; i < len(s); i++ {
			if s[i] == '\a' {
				return i + 1
			}
			if s[i] == ansi.ESC && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}

// wrapLine appends the lines of one paragraph wider than first, split
// into pieces ps.
func wrapLine(out []string, line string, ps []piece, first, rest int) []string {
	var state styleState
	for pos, limit := 0, first; pos < len(ps); limit = rest {
		cut, long := breakAt(ps, pos, limit)
		open := state.open()
		state.follow(line, ps[pos:cut])
		text := line[ps[pos].start:ps[cut-1].end]
		if long {
			// Spaces before the URL are dropped as at a break.
			for ps[pos].space {
				pos++
			}
			text = cutURL(line, ps[pos:cut], limit)
		}
		out = append(out, open+text+state.close())
		// The spaces at the break are dropped.
		for pos = cut; pos < len(ps) && ps[pos].space; pos++ {
		}
	}
	return out
}

// breakAt is where the line starting at piece pos ends (exclusive): after
// the most pieces that fit in limit cells, moved back to the last run of
// spaces or hyphen among them when there is one, or to before a URL that
// would be broken. long reports a URL too long for any line: the line
// runs to its end and is cut with cutURL.
func breakAt(ps []piece, pos, limit int) (cut int, long bool) {
	end, width := pos, 0
	spaceCut, hyphenCut := -1, -1
	for end < len(ps) && width+ps[end].width <= limit {
		p := ps[end]
		switch {
		case p.space && end > pos && !ps[end-1].space:
			spaceCut = end // the start of a run of spaces
		case p.hyphen && !p.url && !p.address && end > pos && !ps[end-1].space:
			hyphenCut = end + 1
		}
		width += p.width
		end++
	}
	// Escape sequences right after the last piece that fits stay on the
	// line.
	for end < len(ps) && ps[end].escape {
		end++
	}
	switch {
	case end == len(ps):
		return end, false
	case end > pos && ps[end].space && !ps[end-1].space:
		return end, false
	case ps[end].url:
		start := end
		for start > pos && ps[start-1].url {
			start--
		}
		cut = start
		for cut > pos && ps[cut-1].space {
			cut--
		}
		if cut > pos {
			return cut, false // the URL starts the next line
		}
		for end < len(ps) && ps[end].url {
			end++
		}
		return end, true
	case spaceCut > pos || hyphenCut > pos:
		return max(spaceCut, hyphenCut), false
	}
	return max(end, pos+1), false // a hard break, of one piece at least
}

// cutURL is the line of pieces ps, which end with a URL too long for
// limit cells, cut to limit cells with "…"; the escape sequences of what
// is cut off are kept, so a hyperlink around the URL stays whole.
func cutURL(line string, ps []piece, limit int) string {
	var b strings.Builder
	b.Grow(ps[len(ps)-1].end - ps[0].start + len("…"))
	i, width := 0, 0
	for ; i < len(ps) && (ps[i].escape || width+ps[i].width < limit); i++ {
		b.WriteString(line[ps[i].start:ps[i].end])
		width += ps[i].width
	}
	b.WriteString("…")
	for ; i < len(ps); i++ {
		if ps[i].escape {
			b.WriteString(line[ps[i].start:ps[i].end])
		}
	}
	return b.String()
}

// styleState is the style and the hyperlink open at a point of a line.
type styleState struct {
	sgr  string // the SGR sequences since the last reset
	link string // the OSC 8 sequence that opened the hyperlink
}

// follow updates the state over pieces of line.
func (s *styleState) follow(line string, ps []piece) {
	for _, p := range ps {
		if !p.escape {
			continue
		}
		seq := line[p.start:p.end]
		switch {
		case strings.HasPrefix(seq, "\x1b]8;"):
			if strings.HasPrefix(seq, "\x1b]8;;\a") || strings.HasPrefix(seq, "\x1b]8;;\x1b\\") {
				s.link = ""
			} else {
				s.link = seq
			}
		case strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m"):
			if seq == "\x1b[m" || seq == "\x1b[0m" {
				s.sgr = ""
			} else {
				s.sgr += seq
			}
		}
	}
}

// open is what reopens the state at the start of a line.
func (s styleState) open() string { return s.link + s.sgr }

// close is what ends the state at the end of a line.
func (s styleState) close() string {
	out := ""
	if s.sgr != "" {
		out += "\x1b[m"
	}
	if s.link != "" {
		out += "\x1b]8;;\a"
	}
	return out
}
