package core

import (
	"net"
	"strings"
	"time"

	"sandview/model"
	"sandview/server/mailparse"
)

// Trace protocols of the Received header (RFC 3848 names; HTTP for the
// test-email endpoint).
const (
	ProtocolESMTP  = "ESMTP"
	ProtocolESMTPS = "ESMTPS"
	ProtocolHTTP   = "HTTP"
)

// receivedValue is the value of the Received trace header the server puts
// on top of every stored message, as an MTA does:
//
//	from HELO ([IP]) by HOST with PROTOCOL id ID for <RCPT>; DATE
//
// `for` names the recipient when the copy is stored for exactly one
// (RFC 5321 4.4 leaves it optional): a copy for several recipients, the
// catch-all's, names none, as Postfix and Sendmail do, since a list of
// them would show every Bcc recipient to whoever reads the message; the
// email's envelope (metadata) says whom it was for, to the inbox alone.
// DATE is the RFC 5322 date of arrival. It is one line (under the 998
// characters RFC 5322 allows), so the parsed header reads as written.
func receivedValue(helo string, ip net.IP, host, protocol, id string, rcpts []string, at time.Time) string {
	var b strings.Builder
	b.WriteString("from ")
	b.WriteString(TraceToken(helo, "unknown"))
	if ip != nil {
		b.WriteString(" ([")
		if ip.To4() == nil {
			b.WriteString("IPv6:")
		}
		b.WriteString(ip.String())
		b.WriteString("])")
	}
	b.WriteString(" by ")
	b.WriteString(host)
	b.WriteString(" with ")
	b.WriteString(protocol)
	b.WriteString(" id ")
	b.WriteString(id)
	if len(rcpts) == 1 {
		b.WriteString(" for <")
		b.WriteString(TraceToken(rcpts[0], "unknown"))
		b.WriteString(">")
	}
	b.WriteString("; ")
	b.WriteString(at.Format(time.RFC1123Z))
	return b.String()
}

// maxTraceToken bounds a client-given name in the trace header.
const maxTraceToken = 255

// TraceToken keeps a client-given name (HELO argument, recipient) to the
// characters of domain names, address literals and addresses, so the
// header stays one line of ASCII; fallback stands for an empty result.
func TraceToken(s, fallback string) string {
	out := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		case strings.ContainsRune(".-_:[]@+=", r):
			return r
		}
		return -1
	}, s)
	if len(out) > maxTraceToken {
		out = out[:maxTraceToken]
	}
	if out == "" {
		return fallback
	}
	return out
}

// traced returns a message as stored: raw with the Received header on top
// (in place of an mbox "From " line, which MTAs drop on delivery),
// and a copy of msg whose header map shows it first among the Received
// values, as parsing the stored raw would. msg itself is not changed.
func traced(raw []byte, msg *mailparse.Message, received string) ([]byte, *mailparse.Message) {
	out := make([]byte, 0, len("Received: \r\n")+len(received)+len(raw))
	out = append(out, "Received: "...)
	out = append(out, received...)
	out = append(out, "\r\n"...)
	out = append(out, model.StripMboxFrom(raw)...) // an mbox From_ line goes, as mailparse drops it

	copied := *msg
	headers := make(model.HeaderMap, len(msg.Content.Headers)+1)
	for name, value := range msg.Content.Headers {
		headers[name] = value
	}
	if earlier, ok := headers["received"]; ok {
		received += "\n" + earlier
	}
	headers["received"] = received
	copied.Content.Headers = headers
	return out, &copied
}
