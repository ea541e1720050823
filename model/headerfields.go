package model

import "bytes"

// HeaderField is one field of a message's header section as written: its
// name, and its value with folded lines joined (the line breaks removed,
// the folding white space kept) and nothing decoded.
type HeaderField struct{ Name, Value string }

// HeaderFields reads the header section of a raw message, up to the first
// empty line, after an mbox "From " line (StripMboxFrom): every field in
// order, repeats kept. Only a line that starts with white space continues
// the field before it (RFC 5322 section 2.2.3: unfolding removes a CRLF
// followed by WSP); a line that is neither that nor "name:" is a
// malformed field, kept as it is with no name, never joined to the field
// before it (a Subject is not lengthened by a stray line). It is the one
// reader of a message's own header fields: the server's parser takes the
// headers it stores and the envelope fields it lists from it (leaving the
// nameless lines out), and the TUI's Headers tab shows them, a nameless
// one as "(not a header field)".
func HeaderFields(raw []byte) []HeaderField {
	raw = StripMboxFrom(raw)
	var out []HeaderField
	var field HeaderField
	started := false
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			break
		}
		if (line[0] == ' ' || line[0] == '\t') && started {
			field.Value += string(line) // unfolding removes the line break only
			continue
		}
		colon := bytes.IndexByte(line, ':')
		name := bytes.TrimRight(line[:max(colon, 0)], " \t")
		isField := len(name) > 0 && !bytes.ContainsAny(name, " \t")
		if started {
			out = append(out, field)
		}
		started = true
		if isField {
			field = HeaderField{Name: string(name), Value: string(line[colon+1:])}
		} else {
			field = HeaderField{Value: string(line)}
		}
	}
	if started {
		out = append(out, field)
	}
	return out
}
