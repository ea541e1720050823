package mailparse

import (
	"bytes"

	"github.com/jhillyerd/enmime"
)

// Limits on the messages given to enmime. Its cost per part is high, and
// its work grows exponentially with the nesting of multiparts that are
// never closed (a 2 KB message with 30 such levels would run for hours), so
// a malformed message beyond these limits keeps its body as text instead.
const (
	// maxTolerantDelimiters bounds the lines starting with "--".
	maxTolerantDelimiters = 5000
	// maxTolerantBoundaries bounds the declared multipart boundaries.
	maxTolerantBoundaries = 64
	// maxUnclosedBoundaries bounds the boundaries never closed.
	maxUnclosedBoundaries = 4
)

// parseTolerant reads raw with enmime, which repairs what it can and
// reports the rest as warnings.
func parseTolerant(raw []byte) (*Message, string) {
	if problem := tooCostlyToRepair(raw); problem != "" {
		return nil, problem
	}
	return recovered(func() (*Message, string) {
		parser := enmime.NewParser(
			enmime.SkipMalformedParts(true),
			enmime.MultipartWOBoundaryAsSinglePart(true),
			enmime.RawContent(true),
			enmime.DisableTextConversion(true),
			enmime.MaxStoredPartErrors(maxWarnings),
		)
		env, err := parser.ReadEnvelope(bytes.NewReader(raw))
		if err != nil {
			return nil, shorten(err.Error(), maxProblemLength)
		}
		m := newMessage()
		for _, e := range env.Errors {
			if e.Name != enmime.ErrorPlainTextFromHTML {
				m.warn(e.Name + ": " + e.Detail)
			}
		}
		m.fillFromTree(fromEnmime(env.Root), raw)
		return m, ""
	})
}

// tooCostlyToRepair says why raw is beyond the tolerant parser's limits,
// or returns "". It takes time linear in the size of raw.
func tooCostlyToRepair(raw []byte) string {
	if bytes.Count(raw, []byte("\n--")) > maxTolerantDelimiters {
		return "too many MIME delimiters to repair"
	}
	declared, ok := declaredBoundaries(raw)
	if !ok {
		return "too many MIME boundaries to repair"
	}
	closed := closedBoundaries(raw)
	unclosed := 0
	for boundary := range declared {
		if !closed[boundary] {
			unclosed++
		}
	}
	if unclosed > maxUnclosedBoundaries {
		return "too many unclosed MIME boundaries to repair"
	}
	return ""
}

// declaredBoundaries collects the values of boundary= parameters anywhere
// in raw (an over-estimate is harmless); ok is false beyond
// maxTolerantBoundaries.
func declaredBoundaries(raw []byte) (boundaries map[string]bool, ok bool) {
	boundaries = make(map[string]bool)
	const param = "oundary="
	for offset := 0; ; {
		at := bytes.Index(raw[offset:], []byte(param))
		if at < 0 {
			return boundaries, true
		}
		at += offset
		offset = at + len(param)
		if at == 0 || raw[at-1]|0x20 != 'b' {
			continue
		}
		value := bytes.TrimLeft(raw[offset:], `"`)
		end := bytes.IndexAny(value, "\"; \t\r\n")
		if end < 0 {
			end = len(value)
		}
		if end == 0 {
			continue
		}
		boundaries[string(value[:end])] = true
		if len(boundaries) > maxTolerantBoundaries {
			return nil, false
		}
	}
}

// closedBoundaries collects X of every closing delimiter line "--X--".
func closedBoundaries(raw []byte) map[string]bool {
	closed := make(map[string]bool)
	for lineStart := 0; lineStart < len(raw); {
		lineEnd := bytes.IndexByte(raw[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(raw)
		} else {
			lineEnd += lineStart
		}
		line := bytes.TrimRight(raw[lineStart:lineEnd], " \t\r")
		if len(line) > 4 && bytes.HasPrefix(line, []byte("--")) && bytes.HasSuffix(line, []byte("--")) {
			closed[string(line[2:len(line)-2])] = true
		}
		next := bytes.Index(raw[lineEnd:], []byte("\n--"))
		if next < 0 {
			break
		}
		lineStart = lineEnd + next + 1
	}
	return closed
}
