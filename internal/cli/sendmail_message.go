package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"strings"
	"time"

	"sandview/internal/cli/cmdutil"
)

// sendmailDefaultSender is the envelope sender when neither -f nor the
// message's From header names one (`sandview send`'s default too).
const sendmailDefaultSender = "sandview@localhost"

// dataError is a message sendmail cannot send as given (exit 65).
type dataError struct{ msg string }

func (e dataError) Error() string { return e.msg }

// outgoingEnvelope is a message ready for SMTP: envelope and content.
type outgoingEnvelope struct {
	from string
	to   []string
	data []byte
}

// readSendmailInput reads the message from r: up to the end, or with
// ignoreDots false up to a line holding a single "." too.
func readSendmailInput(r io.Reader, ignoreDots bool) ([]byte, error) {
	if ignoreDots {
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("read the message from standard input: %w", err)
		}
		return data, nil
	}
	br := bufio.NewReader(r)
	var buf bytes.Buffer
	for {
		line, err := br.ReadBytes('\n')
		if bytes.Equal(bytes.TrimRight(line, "\r\n"), []byte(".")) {
			return buf.Bytes(), nil
		}
		buf.Write(line)
		if errors.Is(err, io.EOF) {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the message from standard input: %w", err)
		}
	}
}

// prepareSendmail makes the envelope and the message sendmail sends: the
// recipients of the arguments (and with -t of To, Cc and Bcc), the
// envelope sender of -f (else the From header's address), the message
// without its Bcc headers, given From, Date and Message-ID headers when it
// has none.
func prepareSendmail(a sendmailArgs, data []byte, now time.Time) (outgoingEnvelope, error) {
	fields, body := splitHeader(data)
	var header bytes.Buffer
	for _, f := range fields {
		header.WriteString(f)
	}
	header.WriteString("\r\n")
	parsed, err := mail.ReadMessage(&header)
	if err != nil {
		return outgoingEnvelope{}, dataError{fmt.Sprintf("the message's header is unparsable: %v", err)}
	}
	to, err := sendmailRecipients(a, parsed.Header)
	if err != nil {
		return outgoingEnvelope{}, err
	}
	from := sendmailDefaultSender
	if list, err := parsed.Header.AddressList("From"); err == nil && len(list) > 0 {
		from = list[0].Address
	}
	if a.senderSet {
		from = a.sender
	}

	eol := "\r\n" // the message's own line end
	if len(fields) > 0 && !strings.HasSuffix(fields[0], "\r\n") {
		eol = "\n"
	}
	var out bytes.Buffer
	if parsed.Header.Get("From") == "" {
		author := (&mail.Address{Name: a.fullName, Address: cmdutil.FirstNonEmpty(from, sendmailDefaultSender)}).String()
		fmt.Fprintf(&out, "From: %s%s", author, eol)
	}
	if parsed.Header.Get("Date") == "" {
		fmt.Fprintf(&out, "Date: %s%s", now.Format(time.RFC1123Z), eol)
	}
	if parsed.Header.Get("Message-ID") == "" {
		fmt.Fprintf(&out, "Message-ID: <%s@sandview>%s", randomToken(), eol)
	}
	for _, f := range fields {
		if name, _, _ := strings.Cut(f, ":"); !strings.EqualFold(strings.TrimSpace(name), "Bcc") {
			out.WriteString(f)
		}
	}
	out.WriteString(eol)
	out.Write(body)
	return outgoingEnvelope{from: from, to: to, data: out.Bytes()}, nil
}

// sendmailRecipients are the arguments' addresses and, with -t, those of
// the To, Cc and Bcc headers, each once.
func sendmailRecipients(a sendmailArgs, h mail.Header) ([]string, error) {
	var to []string
	seen := map[string]bool{}
	add := func(list []*mail.Address) {
		for _, addr := range list {
			if key := strings.ToLower(addr.Address); !seen[key] {
				seen[key] = true
				to = append(to, addr.Address)
			}
		}
	}
	for _, arg := range a.recipients {
		list, err := mail.ParseAddressList(arg)
		if err != nil {
			return nil, dataError{fmt.Sprintf("recipient %q is not an address: %v", arg, err)}
		}
		add(list)
	}
	if a.fromHeaders {
		for _, name := range []string{"To", "Cc", "Bcc"} {
			list, err := h.AddressList(name)
			if err != nil && !errors.Is(err, mail.ErrHeaderNotPresent) {
				return nil, dataError{fmt.Sprintf("the %s header is unparsable: %v", name, err)}
			}
			add(list)
		}
	}
	if len(to) == 0 {
		return nil, dataError{"no recipients: name them as arguments, or pass -t to take them from the To, Cc and Bcc headers"}
	}
	return to, nil
}

// splitHeader splits a message into its header fields (each with its
// continuation lines and line ends, as given) and its body. The header
// ends at the first empty line, which is dropped, or at the first line
// that is not a field, which starts the body: a message with no header
// at all is all body.
func splitHeader(data []byte) (fields []string, body []byte) {
	rest := data
	for len(rest) > 0 {
		end := bytes.IndexByte(rest, '\n') + 1
		if end == 0 {
			end = len(rest)
		}
		line := rest[:end]
		if line[len(line)-1] != '\n' {
			line = append(bytes.Clone(line), '\r', '\n') // the last line: a field ends with its line end
		}
		switch {
		case len(bytes.TrimRight(line, "\r\n")) == 0:
			return fields, rest[end:]
		case (line[0] == ' ' || line[0] == '\t') && len(fields) > 0:
			fields[len(fields)-1] += string(line)
		case isFieldLine(line):
			fields = append(fields, string(line))
		default:
			return fields, rest
		}
		rest = rest[end:]
	}
	return fields, nil
}

// isFieldLine reports a line that starts a header field: a name of
// printable ASCII but the colon, then a colon.
func isFieldLine(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return false
	}
	for _, c := range line[:colon] {
		if c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}
