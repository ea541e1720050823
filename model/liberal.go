package model

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	json "github.com/go-json-experiment/json/v1"
)

// StringList decodes from a JSON string or an array of strings.
type StringList []string

// UnmarshalJSON accepts "a", ["a","b"] and null.
func (l *StringList) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*l = nil
		return nil
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("decode address string: %w", err)
		}
		*l = splitAddressList(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("decode address list: %w", err)
	}
	*l = list
	return nil
}

// UnmarshalJSONFrom is UnmarshalJSON off a stream (see
// HeaderMap.UnmarshalJSONFrom): a string is read as a token.
func (l *StringList) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		*l = splitAddressList(tok.String())
		return nil
	}
	value, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return l.UnmarshalJSON(value)
}

// splitAddressList splits "a@x, b@y" into its addresses; an empty string is
// no address. Commas inside quoted display names are kept.
func splitAddressList(s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ',' && !quoted:
			if part := strings.TrimSpace(cur.String()); part != "" {
				out = append(out, part)
			}
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	if part := strings.TrimSpace(cur.String()); part != "" {
		out = append(out, part)
	}
	return out
}

// HeaderMap is a header name to value map that decodes values given as
// strings, as structured address objects ({value:[{address,name}], text}),
// as {value, params} objects, or as arrays, into readable text.
type HeaderMap map[string]string

// UnmarshalJSONFrom decodes the liberal header shapes of deployed servers
// off a stream (github.com/go-json-experiment/json calls it, as clients
// decode lists): what UnmarshalJSON makes of the same value, with the
// common case, a value that is a string, read without a copy of the
// value or a detour through any.
func (h *HeaderMap) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		value, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return h.UnmarshalJSON(value)
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	out := HeaderMap{}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String() // before the next read voids tok
		switch dec.PeekKind() {
		case '"':
			value, err := dec.ReadToken()
			if err != nil {
				return err
			}
			out[name] = value.String()
		default:
			value, err := dec.ReadValue()
			if err != nil {
				return err
			}
			out[name] = headerText(json.RawMessage(value))
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	*h = out
	return nil
}

// UnmarshalJSON decodes the liberal header shapes of deployed servers.
func (h *HeaderMap) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("decode headers: %w", err)
	}
	out := make(HeaderMap, len(raw))
	for name, value := range raw {
		out[name] = headerText(value)
	}
	*h = out
	return nil
}

// headerText renders one header value of any shape as text.
func headerText(value json.RawMessage) string {
	var v any
	if err := json.Unmarshal(value, &v); err != nil {
		return string(value)
	}
	return renderHeaderValue(v)
}

func renderHeaderValue(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case []any:
		parts := make([]string, 0, len(t))
		for _, item := range t {
			if s := renderHeaderValue(item); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		return renderHeaderObject(t)
	default:
		b, _ := json.Marshal(t)
		return string(b)
	}
}

// renderHeaderObject prefers an object's text form, then an address, then
// value with its parameters.
func renderHeaderObject(obj map[string]any) string {
	if text, ok := obj["text"].(string); ok && text != "" {
		return text
	}
	if addr, ok := obj["address"].(string); ok {
		if name, _ := obj["name"].(string); name != "" {
			return fmt.Sprintf("%q <%s>", name, addr)
		}
		return addr
	}
	value, hasValue := obj["value"]
	if !hasValue {
		b, _ := json.Marshal(obj)
		return string(b)
	}
	out := renderHeaderValue(value)
	if params, ok := obj["params"].(map[string]any); ok {
		names := make([]string, 0, len(params))
		for name := range params {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			out += fmt.Sprintf("; %s=%s", name, renderHeaderValue(params[name]))
		}
	}
	return out
}
