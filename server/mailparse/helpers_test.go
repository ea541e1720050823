package mailparse

import (
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"
)

// crlf turns a readable LF test message into the CRLF form SMTP delivers.
func crlf(s string) []byte {
	return []byte(strings.ReplaceAll(s, "\n", "\r\n"))
}

// assertValidUTF8 checks every string the server would serve.
func assertValidUTF8(t *testing.T, m *Message) {
	t.Helper()
	check := func(what, s string) {
		if !utf8.ValidString(s) {
			t.Errorf("%s is not valid UTF-8: %q", what, s)
		}
	}
	check("From", m.From)
	check("Subject", m.Subject)
	check("Text", m.Content.Text)
	check("HTML", m.Content.HTML)
	for name, value := range m.Content.Headers {
		check("header name", name)
		check("header "+name, value)
	}
	for _, a := range m.Content.Attachments {
		check("attachment filename", a.Filename)
	}
	for _, w := range m.Warnings {
		check("warning", w)
	}
}

func hasWarning(m *Message, fragment string) bool {
	for _, w := range m.Warnings {
		if strings.Contains(w, fragment) {
			return true
		}
	}
	return false
}

func hexString(b []byte) string { return hex.EncodeToString(b) }
