package mailparse

import (
	"strings"

	"sandview/model"
	"sandview/model/mimeword"
)

// rawHeaders maps a lowercased header name to its undecoded values, in the
// order they appear in the message.
type rawHeaders map[string][]string

// messageHeaders is the message's own header section as model.HeaderFields
// reads it (the reader the TUI's Headers tab shares, so the list and the
// tab never disagree), by lowercased name; lines without a name are left
// out.
func messageHeaders(raw []byte) rawHeaders {
	h := rawHeaders{}
	for _, f := range model.HeaderFields(raw) {
		if f.Name == "" {
			continue
		}
		name := strings.ToLower(f.Name)
		h[name] = append(h[name], f.Value)
	}
	return h
}

// first returns the first value of the named header (lowercase name), or "".
func (h rawHeaders) first(name string) string {
	if values := h[name]; len(values) > 0 {
		return values[0]
	}
	return ""
}

// has reports whether the named header (lowercase name) is present.
func (h rawHeaders) has(name string) bool { return len(h[name]) > 0 }

// decoded returns the header map stored with a message: lowercased names,
// RFC 2047 decoded values, repeated headers joined with "\n".
func (h rawHeaders) decoded() model.HeaderMap {
	out := make(model.HeaderMap, len(h))
	for name, values := range h {
		decodedValues := make([]string, len(values))
		for i, v := range values {
			decodedValues[i] = decodeHeaderValue(v)
		}
		out[validUTF8String(name)] = strings.Join(decodedValues, "\n")
	}
	return out
}

// decodeHeaderValue decodes the encoded words of one header value and makes
// the result valid UTF-8. A value that does not decode is kept as it is.
func decodeHeaderValue(value string) string {
	return validUTF8String(strings.TrimSpace(mimeword.Decode(value)))
}
