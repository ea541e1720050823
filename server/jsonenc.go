package server

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"sandview/crypto"
)

// Hand-written JSON for the hot paths: sealed payloads (written once per
// email) and email records (embedding stored payload JSON verbatim, which
// encoding/json would re-validate and compact on every response).

// appendJSONString appends s as a JSON string.
func appendJSONString(dst []byte, s string) []byte {
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

// payloadFields are the byte fields of a payload in the order payloadJSON
// writes them, each with the JSON that precedes its value.
func payloadFields(p *crypto.Payload) []struct {
	prefix string
	value  *string
} {
	return []struct {
		prefix string
		value  *string
	}{
		{`,"ct_kem":"`, &p.CtKem}, {`","nonce":"`, &p.Nonce}, {`","aad":"`, &p.AAD},
		{`","ciphertext":"`, &p.Ciphertext}, {`","sig":"`, &p.Sig}, {`","server_sig_pk":"`, &p.ServerSigPk},
	}
}

// appendPayloadHeader appends the start of a payload's JSON: its version
// and algorithms.
func appendPayloadHeader(b []byte, v int, algs crypto.Algs) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, `,"algs":{"kem":`...)
	b = appendJSONString(b, algs.KEM)
	b = append(b, `,"sig":`...)
	b = appendJSONString(b, algs.Sig)
	b = append(b, `,"aead":`...)
	b = appendJSONString(b, algs.AEAD)
	b = append(b, `,"kdf":`...)
	b = appendJSONString(b, algs.KDF)
	return append(b, '}')
}

// payloadJSON renders a payload as the contract's EncryptedPayload. Its
// byte fields are copied without escaping: every payload the server renders
// was made or validated by crypto, so they are base64url.
func payloadJSON(p *crypto.Payload) []byte {
	size := 160 + len(p.CtKem) + len(p.Nonce) + len(p.AAD) + len(p.Ciphertext) + len(p.Sig) + len(p.ServerSigPk)
	b := appendPayloadHeader(make([]byte, 0, size), p.V, p.Algs)
	for _, f := range payloadFields(p) {
		b = append(b, f.prefix...)
		b = append(b, *f.value...)
	}
	return append(b, `"}`...)
}

// storedPayload reads back a payload payloadJSON wrote, without a general
// JSON decoder (a payload is ~10 KB of base64url, which encoding/json
// scans twice); anything else goes through crypto.ParsePayload. The result
// is not validated: crypto validates it before using it.
func storedPayload(data []byte) (*crypto.Payload, error) {
	p := &crypto.Payload{V: 1, Algs: crypto.DefaultAlgs()}
	header := appendPayloadHeader(make([]byte, 0, 128), p.V, p.Algs)
	rest, ok := bytes.CutPrefix(data, header)
	for _, f := range payloadFields(p) {
		if !ok {
			break
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(f.prefix)); !ok {
			break
		}
		end := bytes.IndexByte(rest, '"')
		if end < 0 {
			ok = false
			break
		}
		*f.value, rest = string(rest[:end]), rest[end:]
	}
	if !ok || string(rest) != `"}` {
		return crypto.ParsePayload(data)
	}
	return p, nil
}

// streamJSON renders the event stream message of a new email; metadata is
// the stored payload JSON (encrypted) or the base64 metadata (plain).
func streamJSON(inboxHash, emailID string, encryptedMetadata []byte, metadata string) []byte {
	b := make([]byte, 0, 64+len(inboxHash)+len(emailID)+len(encryptedMetadata)+len(metadata))
	b = append(b, `{"inboxId":`...)
	b = appendJSONString(b, inboxHash)
	b = append(b, `,"emailId":`...)
	b = appendJSONString(b, emailID)
	if encryptedMetadata != nil {
		b = append(b, `,"encryptedMetadata":`...)
		b = append(b, encryptedMetadata...)
	} else {
		b = append(b, `,"metadata":`...)
		b = appendJSONString(b, metadata)
	}
	return append(b, '}')
}
