package model

import (
	"slices"
	"strings"
)

// Envelope is the SMTP envelope a stored email came with: the MAIL FROM
// address (the reverse path; "" for the null sender <>) and the RCPT TO
// addresses this copy was accepted for (an inbox's own copy: its
// recipients; the catch-all's: every recipient it took). It travels as
// the optional `envelope` field of an email's metadata: the embedded
// server sends it, the reference service does not, and a client shows it
// only when it is there, never inventing it from the headers.
type Envelope struct {
	From string   `json:"from"`
	To   []string `json:"to"`
}

// EnvelopeLabel marks recipients shown from the envelope where the To
// header names none.
const EnvelopeLabel = "(envelope)"

// EnvelopeTo is the email's envelope recipients, nil when the server did
// not send its envelope.
func (e Email) EnvelopeTo() []string {
	if e.Envelope == nil {
		return nil
	}
	return e.Envelope.To
}

// ShownTo is whom the email is shown as sent to: the recipients of its To
// header; or, when the header names no address (missing, `To: baz`, an
// empty group such as `To: undisclosed-recipients:;`) and the envelope is
// known, its envelope recipients, with fromEnvelope set: show them
// labelled (EnvelopeLabel), never as To.
func (e Email) ShownTo() (to []string, fromEnvelope bool) {
	if slices.ContainsFunc(e.To, func(s string) bool { return strings.Contains(s, "@") }) {
		return e.To, false
	}
	if env := e.EnvelopeTo(); len(env) > 0 {
		return AddrSpecs(env), true
	}
	return e.To, false
}

// ShownToText is ShownTo joined with ", ", EnvelopeLabel after envelope
// recipients.
func (e Email) ShownToText() string {
	to, fromEnvelope := e.ShownTo()
	out := strings.Join(to, ", ")
	if fromEnvelope {
		out += " " + EnvelopeLabel
	}
	return out
}

// AddrSpecs writes each address with AddrSpec.
func AddrSpecs(addrs []string) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = AddrSpec(a)
	}
	return out
}

// ReversePath is the envelope sender as shown: the address, or "<>" for
// the null sender (bounces, auto-replies).
func ReversePath(from string) string {
	if from == "" {
		return "<>"
	}
	return AddrSpec(from)
}
