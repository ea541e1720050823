package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// customTemplate is a custom body split into literal JSON and slots.
type customTemplate struct {
	segments []segment
}

// segment is literal JSON text, or a string holding placeholders.
type segment struct {
	literal []byte
	// whole: the string is exactly one placeholder, replaced by a JSON value
	whole bool
	parts []part
}

// part is literal text or a placeholder path.
type part struct {
	text string
	path []string
}

// compileCustom parses a custom body. Placeholders standing alone as values
// are first quoted so that the text is JSON.
func compileCustom(body string) (*customTemplate, error) {
	quoted := quoteBarePlaceholders(body)
	dec := json.NewDecoder(strings.NewReader(quoted))
	dec.UseNumber()
	t := &customTemplate{}
	var lit bytes.Buffer
	flush := func() {
		if lit.Len() > 0 {
			t.segments = append(t.segments, segment{literal: bytes.Clone(lit.Bytes())})
			lit.Reset()
		}
	}
	// stack of containers: for objects, whether the next string is a key
	type frame struct {
		object, expectKey, first bool
	}
	var stack []frame
	topDone := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not valid JSON (placeholders aside): %w", err)
		}
		if topDone {
			return nil, errors.New("not valid JSON: text after the end of the value")
		}
		// separators before a value or key
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			isClose := tok == json.Delim('}') || tok == json.Delim(']')
			if !isClose {
				if top.object && !top.expectKey {
					lit.WriteByte(':')
				} else if !top.first {
					lit.WriteByte(',')
				}
				top.first = false
			}
		}
		isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey
		switch v := tok.(type) {
		case json.Delim:
			lit.WriteRune(rune(v))
			switch v {
			case '{':
				stack = append(stack, frame{object: true, expectKey: true, first: true})
				continue
			case '[':
				stack = append(stack, frame{first: true})
				continue
			default:
				stack = stack[:len(stack)-1]
				isKey = false // the closed container was a value of its parent
			}
		case string:
			parts := splitPlaceholders(v)
			if len(parts) == 1 && parts[0].path == nil || len(parts) == 0 {
				enc, _ := json.Marshal(v)
				lit.Write(enc)
			} else {
				flush()
				t.segments = append(t.segments, segment{whole: !isKey && len(parts) == 1, parts: parts})
			}
		case json.Number:
			lit.WriteString(v.String())
		case bool:
			lit.WriteString(strconv.FormatBool(v))
		case nil:
			lit.WriteString("null")
		}
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].expectKey = !isKey
			}
		} else {
			topDone = true
		}
	}
	if !topDone {
		return nil, errors.New("not valid JSON: the value is incomplete")
	}
	flush()
	return t, nil
}

// quoteBarePlaceholders wraps every {{...}} that stands outside a JSON
// string in quotes.
func quoteBarePlaceholders(s string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			b.WriteByte(c)
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == '{' && strings.HasPrefix(s[i:], "{{") {
			if end := strings.Index(s[i+2:], "}}"); end >= 0 {
				if name := strings.TrimSpace(s[i+2 : i+2+end]); validPath(name) {
					b.WriteString(`"{{` + name + `}}"`)
					i += 2 + end + 1
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func validPath(name string) bool {
	if name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return false
	}
	for _, r := range name {
		if !(r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// splitPlaceholders splits s into literal text and placeholders.
func splitPlaceholders(s string) []part {
	var parts []part
	var lit strings.Builder
	for {
		start := strings.Index(s, "{{")
		if start < 0 {
			break
		}
		end := strings.Index(s[start+2:], "}}")
		if end < 0 {
			break
		}
		name := strings.TrimSpace(s[start+2 : start+2+end])
		if !validPath(name) {
			lit.WriteString(s[:start+2])
			s = s[start+2:]
			continue
		}
		lit.WriteString(s[:start])
		if lit.Len() > 0 {
			parts = append(parts, part{text: lit.String()})
			lit.Reset()
		}
		parts = append(parts, part{path: strings.Split(name, ".")})
		s = s[start+2+end+2:]
	}
	lit.WriteString(s)
	if lit.Len() > 0 {
		parts = append(parts, part{text: lit.String()})
	}
	return parts
}

// render fills the template from the event tree. The result is valid JSON
// whatever the values hold.
func (t *customTemplate) render(tree map[string]any) ([]byte, error) {
	var b bytes.Buffer
	for _, s := range t.segments {
		switch {
		case s.literal != nil:
			b.Write(s.literal)
		case s.whole:
			v, ok := lookup(tree, s.parts[0].path)
			if !ok {
				b.WriteString("null")
				continue
			}
			enc, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("encode template value: %w", err)
			}
			b.Write(enc)
		default:
			var text strings.Builder
			for _, p := range s.parts {
				if p.path == nil {
					text.WriteString(p.text)
					continue
				}
				if v, ok := lookup(tree, p.path); ok {
					text.WriteString(textOf(v))
				}
			}
			enc, err := json.Marshal(text.String())
			if err != nil {
				return nil, fmt.Errorf("encode template text: %w", err)
			}
			b.Write(enc)
		}
	}
	return b.Bytes(), nil
}

// lookup follows a dotted path through objects and arrays (numeric
// segments index arrays).
func lookup(tree map[string]any, path []string) (any, bool) {
	var cur any = tree
	for _, key := range path {
		switch node := cur.(type) {
		case map[string]any:
			next, ok := node[key]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, cur != nil
}

// textOf is the text of a value inside a string: strings as they are,
// numbers and booleans as written, objects and arrays as compact JSON.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(enc)
}
