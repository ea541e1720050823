package model

import (
	"bytes"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"sandview/model/mimeword"
)

// What an email's own headers say, read the same way by the embedded server
// (server/mailparse), the CLI, the TUI and search.

// Header is the value of the named header of e, whatever the case of the
// name in e.Headers ("" when absent).
func (e Email) Header(name string) string {
	if v, ok := e.Headers[name]; ok {
		return v
	}
	if v, ok := e.Headers[strings.ToLower(name)]; ok {
		return v
	}
	for k, v := range e.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// ErrNoDateHeader is SentDate's error for an email without a Date header.
var ErrNoDateHeader = errors.New("no Date header")

// DateHeaderError is SentDate's error for a Date header that is not a date.
type DateHeaderError struct {
	Raw string // the header as received (sanitize before printing)
}

func (e *DateHeaderError) Error() string { return "unparsable Date header: " + e.Raw }

// SentDate is the email's Date header: when the sender says it sent the
// mail, in the sender's time zone (its offset kept; format it with
// .Local() for the reader's zone). ReceivedAt is when the server received
// it. The error is ErrNoDateHeader or a *DateHeaderError; their messages
// are what to show in place of the date.
func (e Email) SentDate() (time.Time, error) {
	raw := strings.TrimSpace(e.Header("Date"))
	if raw == "" {
		return time.Time{}, ErrNoDateHeader
	}
	t, err := ParseDate(raw)
	if err != nil {
		return time.Time{}, &DateHeaderError{Raw: raw}
	}
	return t, nil
}

// DateText is the Date header as a reader shows it: in the sender's zone
// and, when that differs, in loc (the user's zone), "Mon, 03 Mar 2025
// 10:00:00 +0100 (local: Mon, 03 Mar 2025 09:00:00 +0000)"; or why there is
// none: "no Date header", "unparsable Date header: <raw>" (sanitize before
// a terminal).
func (e Email) DateText(loc *time.Location) string {
	sent, err := e.SentDate()
	if err != nil {
		return err.Error()
	}
	out := sent.Format(time.RFC1123Z)
	if local := sent.In(loc).Format(time.RFC1123Z); local != out {
		out += " (local: " + local + ")"
	}
	return out
}

// ParseDate reads a Date header value (RFC 5322, the obsolete forms
// net/mail knows, and what Python's email.utils.parsedate_tz reads beyond
// them: see parseLenientDate), keeping its offset.
func ParseDate(value string) (time.Time, error) {
	value = strings.TrimSpace(value)
	if t, err := time.Parse(time.RFC1123Z, value); err == nil {
		return t, nil
	}
	t, err := mail.ParseDate(value)
	if err != nil {
		if t, ok := parseLenientDate(value); ok {
			return t, nil
		}
		return time.Time{}, fmt.Errorf("parse date %q: %w", value, err)
	}
	return withNamedZone(t), nil
}

// Cc is the email's Cc recipients, each in display form (DisplayAddress),
// read from its Cc header; nil when it has none.
func (e Email) Cc() []string {
	addrs, _ := ParseAddressList(e.Header("Cc"))
	if len(addrs) == 0 {
		return nil
	}
	return DisplayAddresses(addrs)
}

// ParseAddressList reads an address header value (RFC 2047 encoded words
// allowed). ok is false when the value is not a valid address list; the
// addresses are then salvaged from the text as well as possible: each
// comma-separated piece that holds an "@" gives one, taken from inside <...>
// when present, with the pieces before it that hold none (a decoded name
// such as "Café, Team" has a comma of its own). Names and addresses are as written: invalid UTF-8 is the
// caller's to repair.
func ParseAddressList(raw string) (addrs []EventAddress, ok bool) {
	if strings.TrimSpace(raw) == "" {
		return nil, true
	}
	parser := mail.AddressParser{WordDecoder: mimeword.WordDecoder()}
	list, err := parser.ParseList(raw)
	// net/mail's errors have no types: these two are told by their text.
	if err != nil && err.Error() == "mail: expected comma" {
		list, err = parser.ParseList(commaSeparated(raw))
	}
	if err != nil && err.Error() == "mail: no address" {
		// A group without members, such as "undisclosed-recipients:;".
		return nil, true
	}
	if err != nil {
		return salvageAddresses(raw), false
	}
	addrs = make([]EventAddress, 0, len(list))
	for _, a := range list {
		addrs = append(addrs, EventAddress{Address: a.Address, Name: mimeword.Decode(a.Name)})
	}
	return addrs, true
}

// commaSeparated puts back the commas some senders leave out between
// addresses ("a@x.example b@y.example", "<a@x.example> <b@y.example>"): a
// space after an address's domain, outside quotes, starts the next one.
func commaSeparated(raw string) string {
	raw = strings.Join(strings.Fields(raw), " ")
	var b strings.Builder
	quoted, escaped, domain := false, false, false
	for _, r := range raw {
		switch {
		case escaped:
			escaped = false
		case quoted:
			escaped = r == '\\'
			quoted = r != '"'
		case r == '"':
			quoted = true
		case r == '@':
			domain = true
		case domain && (r == ',' || r == ';'):
			domain = false
		case domain && r == ' ':
			domain = false
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func salvageAddresses(raw string) []EventAddress {
	var out []EventAddress
	pending := "" // pieces without an "@": a name cut at its comma
	for _, piece := range strings.Split(raw, ",") {
		if pending != "" {
			piece = pending + "," + piece
		}
		if !strings.Contains(piece, "@") {
			pending = piece
			continue
		}
		pending = ""
		piece = strings.TrimSpace(piece)
		addr, name := piece, ""
		if open := strings.LastIndexByte(piece, '<'); open >= 0 {
			if end := strings.IndexByte(piece[open:], '>'); end > 0 {
				addr = piece[open+1 : open+end]
				name = strings.Trim(strings.TrimSpace(piece[:open]), `"`)
			}
		}
		out = append(out, EventAddress{Address: strings.TrimSpace(addr), Name: name})
	}
	return out
}

// StripMboxFrom removes the mbox "From " separator line a message may start
// with ("From sender@example.org  Mon Mar  3 10:00:00 2025"), as an MTA does
// on delivery: it is not a header field, and a parser that takes it for one
// loses the headers after it. Anything else is returned as it is. Every
// reader of a raw message (the server's parser, the TUI's Headers tab)
// calls it first.
func StripMboxFrom(raw []byte) []byte {
	if !bytes.HasPrefix(raw, []byte("From ")) {
		return raw
	}
	if rest := bytes.TrimLeft(raw[len("From "):], " \t"); len(rest) > 0 && rest[0] == ':' {
		return raw // "From : a@example.org", the obsolete form of a From header
	}
	if i := bytes.IndexByte(raw, '\n'); i >= 0 {
		return raw[i+1:]
	}
	return nil
}
