package core

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"sandview/crypto"
	"sandview/server/store"
)

// Hand-written JSON for the hot paths: email records and stream messages,
// which embed rendered payloads that encoding/json would re-validate and
// compact on every response.

// AppendJSONString appends s as a JSON string.
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			if r == utf8.RuneError {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, `\u202`...)
				dst = append(dst, hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendPayload appends one stored payload of an email of the (encrypted)
// inbox as the contract's EncryptedPayload: sealed payloads are rendered
// (the parsed and raw ones with the ct_kem they share with the metadata);
// payloads an earlier version stored as that JSON already are copied as
// they are.
func (in *Inbox) AppendPayload(dst []byte, e *store.Email, stored []byte) ([]byte, error) {
	if !crypto.IsSealed(stored) {
		return append(dst, stored...), nil
	}
	out, err := in.sealer.AppendJSON(dst, stored, crypto.Sealed(e.Metadata).CtKem())
	if err != nil {
		return nil, fmt.Errorf("email %s: %w", e.ID, err)
	}
	return out, nil
}

// streamJSON renders the event stream message of a new email of the
// inbox: its metadata payload as the contract's EncryptedPayload
// (encrypted inbox) or its JSON in base64 (plain), written in place.
func streamJSON(in *Inbox, emailID string, metadata []byte) ([]byte, error) {
	size := 64 + len(in.Hash) + len(emailID)
	if in.Encrypted {
		size += in.sealer.JSONSize(metadata)
	} else {
		size += base64.StdEncoding.EncodedLen(len(metadata))
	}
	b := make([]byte, 0, size)
	b = append(b, `{"inboxId":`...)
	b = AppendJSONString(b, in.Hash)
	b = append(b, `,"emailId":`...)
	b = AppendJSONString(b, emailID)
	if !in.Encrypted {
		// The base64 alphabet needs no escaping in a JSON string.
		b = append(b, `,"metadata":"`...)
		b = base64.StdEncoding.AppendEncode(b, metadata)
		return append(b, `"}`...), nil
	}
	b = append(b, `,"encryptedMetadata":`...)
	b, err := in.sealer.AppendJSON(b, metadata, nil)
	if err != nil {
		return nil, fmt.Errorf("email %s: %w", emailID, err)
	}
	return append(b, '}'), nil
}
