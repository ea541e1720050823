package htmltext

import (
	"regexp"
	"strings"

	"sandview/model/termtext"
)

// listItem is a list item's line in the converter's Markdown: its
// indentation, its marker and its text.
var listItem = regexp.MustCompile(`^( *)([-*+]|[0-9]{1,9}[.)]) (.+)$`)

// hangListItems wraps the text of each list item of md to the width it has
// after the item's marker, and indents the lines that continue it with
// no-break spaces as wide as the marker (glamour would start them under
// the marker): the text of an item hangs to the right of its bullet.
// Widths are counted on the Markdown, whose markup takes at least the
// cells of what it shows, so glamour never needs to wrap the lines again.
func hangListItems(md string, width int) string {
	if !strings.Contains(md, "- ") && !strings.Contains(md, ". ") {
		return md
	}
	var b strings.Builder // md with its items hung, from the first item that wraps on
	started := false
	var levels []int // the indentation of the lists open around the line
	fenced := false
	for start := 0; start <= len(md); {
		lineStart, end := start, strings.IndexByte(md[start:], '\n')
		if end < 0 {
			end = len(md)
		} else {
			end += start
		}
		line := md[start:end]
		start = end + 1
		trimmed := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
		}
		var m []string
		if !fenced && trimmed != "" && strings.IndexByte("-*+0123456789", trimmed[0]) >= 0 { // what listItem can match
			m = listItem.FindStringSubmatch(line)
		}
		if fenced || m == nil {
			if trimmed != "" && trimmed == line {
				levels = levels[:0] // a block at the left margin ends the lists
			}
			if started {
				b.WriteByte('\n')
				b.WriteString(line)
			}
			continue
		}
		indent := len(m[1])
		for len(levels) > 0 && levels[len(levels)-1] >= indent {
			levels = levels[:len(levels)-1]
		}
		levels = append(levels, indent)
		marker := len(m[2]) + 1 // "- " is shown "• ", "1. " as it is
		wrapped := wrapWords(m[3], width-2*(len(levels)-1)-marker)
		if len(wrapped) == 1 && !started { // the line as it is
			continue
		}
		if !started {
			b.Grow(len(md) + len(md)/8)
			b.WriteString(md[:lineStart])
			started = true
		} else {
			b.WriteByte('\n')
		}
		b.WriteString(m[1] + m[2] + " " + wrapped[0])
		for _, rest := range wrapped[1:] {
			b.WriteString("\n" + m[1] + strings.Repeat(" ", marker) + strings.Repeat("\u00a0", marker) + rest)
		}
	}
	if !started {
		return md
	}
	return b.String()
}

// wrapWords cuts text at its spaces into lines of at most limit cells (a
// longer word takes a line of its own); the sentinels take no cells.
func wrapWords(text string, limit int) []string {
	if limit < 10 || termtext.Width(stripSentinels(text)) <= limit {
		return []string{text}
	}
	var lines []string
	line, cells := "", 0
	for _, word := range strings.Split(text, " ") {
		w := termtext.Width(stripSentinels(word))
		switch {
		case line == "":
			line, cells = word, w
		case cells+1+w <= limit:
			line, cells = line+" "+word, cells+1+w
		default:
			lines = append(lines, line)
			line, cells = word, w
		}
	}
	return append(lines, line)
}

// stripSentinels removes the sentinels from text.
func stripSentinels(text string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case linkStart, linkEnd, dimStart, dimEnd, addressMark:
			return -1
		}
		return r
	}, text)
}
