package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"sandview/model"
)

// maxRawLayers is how many base64 layers around a raw message are undone.
const maxRawLayers = 3

// Raw returns the RFC 5322 source of an email, decoded from its transport
// forms (see decodeRawMessage).
func (i *Inbox) Raw(ctx context.Context, id string) ([]byte, error) {
	var rec model.RawRecord
	err := i.c.do(ctx, request{
		method:   http.MethodGet,
		path:     emailPath(i.info.EmailAddress, id) + "/raw",
		out:      &rec,
		notFound: emailNotFound(i.info.EmailAddress, id),
	})
	if err != nil {
		return nil, fmt.Errorf("get raw email %s: %w", id, err)
	}
	if i.info.Encrypted && rec.EncryptedRaw != nil {
		if _, err := i.openerFor(ctx); err != nil {
			return nil, err
		}
	}
	return i.OpenRaw(rec)
}

// OpenRaw decodes a raw record: the encrypted payload is opened; the
// message is then unwrapped from base64 as often as the server wrapped it.
// An encrypted inbox's record without its payload, or with a plain copy,
// is a *DecryptionError (see refusesPlain).
func (i *Inbox) OpenRaw(rec model.RawRecord) ([]byte, error) {
	if err := refusesPlain(i.info, rec.ID, rec.EncryptedRaw, rec.Raw); err != nil {
		return nil, err
	}
	if rec.EncryptedRaw != nil {
		plain, err := i.open(rec.ID, rec.EncryptedRaw)
		if err != nil {
			return nil, err
		}
		return unwrapMessage(plain), nil
	}
	if rec.Raw == "" {
		return nil, fmt.Errorf("raw email %s: the server sent no message", rec.ID)
	}
	decoded, ok := decodeBase64Liberal(rec.Raw)
	if !ok {
		return nil, fmt.Errorf("raw email %s: the message is not valid base64", rec.ID)
	}
	return unwrapMessage(decoded), nil
}

// unwrapMessage undoes the deployments' extra base64 layers: it returns
// the first of b, base64(b), base64(base64(b)) that looks like a message,
// or b itself. A real message is never valid base64 (its header lines
// contain ':'), so this cannot damage one.
func unwrapMessage(b []byte) []byte {
	candidate := b
	for range maxRawLayers {
		if looksLikeMessage(candidate) {
			return candidate
		}
		decoded, ok := decodeBase64Liberal(string(candidate))
		if !ok {
			break
		}
		candidate = decoded
	}
	if looksLikeMessage(candidate) {
		return candidate
	}
	return b
}

// looksLikeMessage reports whether b starts with an RFC 5322 header line
// ("Name: value", the name printable ASCII without ':').
func looksLikeMessage(b []byte) bool {
	line := b
	if n := bytes.IndexByte(b, '\n'); n >= 0 {
		line = b[:n]
	}
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return false
	}
	for _, ch := range line[:colon] {
		if ch <= ' ' || ch > '~' {
			return false
		}
	}
	return true
}

// decodeBase64Liberal decodes standard or URL-safe base64, padded or not,
// ignoring line breaks.
func decodeBase64Liberal(s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	if strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0 { // not ContainsAny: a byte at a time
		s = strings.NewReplacer("\r", "", "\n", "").Replace(s)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}
