package mailparse

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// decodeTransfer undoes a part's Content-Transfer-Encoding. Damaged base64
// keeps what could be decoded, with a warning. For the identity encodings
// the part's own content is returned (aliased reports that).
func (m *Message) decodeTransfer(p *part) (content []byte, aliased bool) {
	encoding := p.header.Get("Content-Transfer-Encoding")
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		decoded, problem := decodeBase64(p.content)
		if problem != "" {
			m.warn(fmt.Sprintf("part %s: %s", p.id, problem))
		}
		return decoded, false
	case "quoted-printable":
		return decodeQuotedPrintable(p.content), false
	case "", "7bit", "8bit", "binary":
		return p.content, true
	default:
		m.warn(fmt.Sprintf("part %s: unknown Content-Transfer-Encoding %q; kept as is", p.id, encoding))
		return p.content, true
	}
}

// decodeBase64 decodes base64 leniently: line breaks and other whitespace
// are ignored, invalid characters are skipped and padding is optional. The
// problem is "" when the input was clean.
func decodeBase64(encoded []byte) (decoded []byte, problem string) {
	decoded = make([]byte, base64.StdEncoding.DecodedLen(len(encoded)))
	if n, err := base64.StdEncoding.Decode(decoded, encoded); err == nil {
		return decoded[:n], ""
	}
	clean := make([]byte, 0, len(encoded))
	invalid := 0
	for _, b := range encoded {
		switch {
		case b >= 'A' && b <= 'Z', b >= 'a' && b <= 'z', b >= '0' && b <= '9', b == '+', b == '/':
			clean = append(clean, b)
		case b == '=', b == ' ', b == '\t', b == '\r', b == '\n':
		default:
			invalid++
		}
	}
	var problems []string
	if invalid > 0 {
		problems = append(problems, fmt.Sprintf("%d invalid base64 characters skipped", invalid))
	}
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1]
		problems = append(problems, "base64 data truncated")
	}
	n, err := base64.RawStdEncoding.Decode(decoded, clean)
	if err != nil {
		problems = append(problems, "base64: "+err.Error())
	}
	if len(problems) == 0 {
		problems = append(problems, "misplaced base64 padding")
	}
	return decoded[:n], strings.Join(problems, "; ")
}

// decodeQuotedPrintable decodes leniently: "=XX" (either case) becomes the
// byte, a line ending in "=" joins the next, an "=" not followed by two hex
// digits is kept as is, and spaces at line ends are dropped (RFC 2045 6.7).
// Line endings are kept as they were.
func decodeQuotedPrintable(encoded []byte) []byte {
	out := make([]byte, 0, len(encoded))
	for len(encoded) > 0 {
		line, rest, hasNewline := bytes.Cut(encoded, []byte("\n"))
		encoded = rest
		lineEnd := "\n"
		if bytes.HasSuffix(line, []byte("\r")) {
			line, lineEnd = line[:len(line)-1], "\r\n"
		}
		line = bytes.TrimRight(line, " \t")
		soft := bytes.HasSuffix(line, []byte("="))
		if soft {
			line = line[:len(line)-1]
		}
		for i := 0; i < len(line); i++ {
			if line[i] == '=' && i+2 < len(line) {
				if hi, ok := unhex(line[i+1]); ok {
					if lo, ok := unhex(line[i+2]); ok {
						out = append(out, hi<<4|lo)
						i += 2
						continue
					}
				}
			}
			out = append(out, line[i])
		}
		if hasNewline && !soft {
			out = append(out, lineEnd...)
		}
	}
	return out
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
