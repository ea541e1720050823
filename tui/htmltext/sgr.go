package htmltext

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	glamouransi "charm.land/glamour/v2/ansi"
)

// sgr is a text style.
type sgr struct {
	bold, faint, italic, underline, reverse, strike bool
	fg, bg                                          string // SGR parameters, "" for the default
}

// apply follows the parameters of an SGR sequence.
func (s *sgr) apply(params string) {
	fields := make([]field, 0, 16) // most sequences have fewer parameters: no allocation
	for i := 0; i < len(params); {
		if params[i] == ';' || params[i] == ':' {
			i++
			continue
		}
		end := i + strings.IndexAny(params[i:], ";:")
		if end < i {
			end = len(params)
		}
		fields = append(fields, field{i, end})
		i = end
	}
	if len(fields) == 0 {
		*s = sgr{}
		return
	}
	for i := 0; i < len(fields); i++ {
		p := fields[i].of(params)
		n, err := strconv.Atoi(p)
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
			s.fg = p
		case n == 39:
			s.fg = ""
		case n >= 40 && n <= 47 || n >= 100 && n <= 107:
			s.bg = p
		case n == 49:
			s.bg = ""
		case n == 38 || n == 48:
			colour, used := extendedColour(params, fields[i:])
			if n == 38 {
				s.fg = colour
			} else {
				s.bg = colour
			}
			i += used
		}
	}
}

// field is where a parameter is in the parameters of a sequence.
type field struct{ start, end int }

func (f field) of(params string) string { return params[f.start:f.end] }

// extendedColour reads "38;5;n" or "38;2;r;g;b" (or 48) from fields (of
// params, from the colour's on), and returns it, its parameters joined by
// ';', and the number of parameters it used after the first.
func extendedColour(params string, fields []field) (string, int) {
	n := 0
	switch {
	case len(fields) >= 3 && fields[1].of(params) == "5":
		n = 3
	case len(fields) >= 5 && fields[1].of(params) == "2":
		n = 5
	default:
		return "", len(fields) - 1
	}
	colour := params[fields[0].start:fields[n-1].end]
	if strings.Count(colour, ";") != n-1 || strings.ContainsRune(colour, ':') { // not written as joined
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fields[i].of(params)
		}
		colour = strings.Join(parts, ";")
	}
	return colour, n - 1
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

// writeSequence writes the SGR sequence that sets s from the default
// style (nothing for the default style).
func (s sgr) writeSequence(b *bytes.Buffer) {
	first := true
	for _, a := range [...]struct {
		on   bool
		code string
	}{{s.bold, "1"}, {s.faint, "2"}, {s.italic, "3"}, {s.underline, "4"}, {s.reverse, "7"}, {s.strike, "9"}, {s.fg != "", s.fg}, {s.bg != "", s.bg}} {
		if !a.on {
			continue
		}
		if first {
			b.WriteString("\x1b[")
			first = false
		} else {
			b.WriteByte(';')
		}
		b.WriteString(a.code)
	}
	if !first {
		b.WriteByte('m')
	}
}
