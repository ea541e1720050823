package client

import (
	"bytes"
	"encoding/binary"

	"sandview/crypto"
	"sandview/model"
)

// A record of a list the way this service and its deployments write it
// (the fields of model.EmailRecord, each once, named exactly, strings of
// printable ASCII without escapes: ids, times and base64) is read by
// decodeRecord in one pass, strings checked eight bytes at a time. Any
// other record, or JSON, is left to jsonv1, whose rules decide what it
// holds; for the records decodeRecord reads, it decodes the same.

// decodeRecord decodes raw into rec and reports true, or reports false
// (rec then holds part of it) when raw is not a record of the plain
// shape.
func decodeRecord(raw []byte, rec *model.EmailRecord) bool {
	r := plainJSON{b: raw}
	const (
		id = 1 << iota
		inboxID
		receivedAt
		isRead
		metadata
		parsed
		encryptedMetadata
		encryptedParsed
	)
	seen := 0
	ok := r.object(func(name []byte) bool {
		var field int
		switch string(name) {
		case "id":
			field, rec.ID = id, r.str()
		case "inboxId":
			field, rec.InboxID = inboxID, r.str()
		case "receivedAt":
			field, rec.ReceivedAt = receivedAt, r.str()
		case "metadata":
			field, rec.Metadata = metadata, r.str()
		case "parsed":
			field, rec.Parsed = parsed, r.str()
		case "isRead":
			field, rec.IsRead = isRead, r.boolean()
		case "encryptedMetadata":
			field, rec.EncryptedMetadata = encryptedMetadata, r.payload()
			r.ok = r.ok && rec.EncryptedMetadata != nil
		case "encryptedParsed":
			field, rec.EncryptedParsed = encryptedParsed, r.payload()
			r.ok = r.ok && rec.EncryptedParsed != nil
		default:
			return false
		}
		if seen&field != 0 {
			return false
		}
		seen |= field
		return r.ok
	})
	r.space()
	return ok && r.ok && r.i == len(r.b)
}

// payload reads an EncryptedPayload object, or returns nil.
func (r *plainJSON) payload() *crypto.Payload {
	var p crypto.Payload
	seen := 0
	ok := r.object(func(name []byte) bool {
		var field int
		switch string(name) {
		case "v":
			field, p.V = 1<<0, r.smallInt()
		case "algs":
			field, r.ok = 1<<1, r.algs(&p.Algs)
		case "ct_kem":
			field, p.CtKem = 1<<2, r.str()
		case "nonce":
			field, p.Nonce = 1<<3, r.str()
		case "aad":
			field, p.AAD = 1<<4, r.str()
		case "ciphertext":
			field, p.Ciphertext = 1<<5, r.str()
		case "sig":
			field, p.Sig = 1<<6, r.str()
		case "server_sig_pk":
			field, p.ServerSigPk = 1<<7, r.str()
		default:
			return false
		}
		if seen&field != 0 {
			return false
		}
		seen |= field
		return r.ok
	})
	if !ok || !r.ok {
		r.ok = false
		return nil
	}
	return &p
}

// algs reads a payload's algorithm names.
func (r *plainJSON) algs(a *crypto.Algs) bool {
	seen := 0
	return r.object(func(name []byte) bool {
		var field int
		switch string(name) {
		case "kem":
			field, a.KEM = 1<<0, r.str()
		case "sig":
			field, a.Sig = 1<<1, r.str()
		case "aead":
			field, a.AEAD = 1<<2, r.str()
		case "kdf":
			field, a.KDF = 1<<3, r.str()
		default:
			return false
		}
		if seen&field != 0 {
			return false
		}
		seen |= field
		return r.ok
	}) && r.ok
}

// plainJSON reads JSON of the plain shape from b[i:]; ok turns false at
// the first thing it does not read.
type plainJSON struct {
	b  []byte
	i  int
	ok bool
}

// space skips whitespace.
func (r *plainJSON) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// next skips whitespace and consumes c, reporting whether it was there.
func (r *plainJSON) next(c byte) bool {
	r.space()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// object reads an object, calling member for each name with the reader
// at its value; member returns false to give up.
func (r *plainJSON) object(member func(name []byte) bool) bool {
	r.ok = true
	if !r.next('{') {
		return false
	}
	if r.next('}') {
		return true
	}
	for {
		name, ok := r.strBytes()
		if !ok || !r.next(':') || !member(name) {
			return false
		}
		r.ok = true
		if r.next('}') {
			return true
		}
		if !r.next(',') {
			return false
		}
	}
}

// str reads a string of the plain shape.
func (r *plainJSON) str() string {
	b, ok := r.strBytes()
	r.ok = ok
	return string(b)
}

// strBytes reads a string of printable ASCII without escapes and returns
// its content.
func (r *plainJSON) strBytes() ([]byte, bool) {
	if !r.next('"') {
		return nil, false
	}
	end := bytes.IndexByte(r.b[r.i:], '"')
	if end < 0 {
		return nil, false
	}
	s := r.b[r.i : r.i+end]
	r.i += end + 1
	return s, plainText(s)
}

// boolean reads true or false.
func (r *plainJSON) boolean() bool {
	r.space()
	for _, lit := range [...]string{"true", "false"} {
		if end := r.i + len(lit); end <= len(r.b) && string(r.b[r.i:end]) == lit {
			r.i = end
			r.ok = true
			return lit == "true"
		}
	}
	r.ok = false
	return false
}

// smallInt reads a number of one to nine digits without a leading zero.
func (r *plainJSON) smallInt() int {
	r.space()
	n, digits := 0, 0
	for ; r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' && digits < 10; r.i++ {
		n = n*10 + int(r.b[r.i]-'0')
		digits++
	}
	r.ok = digits > 0 && digits < 10 && !(digits > 1 && r.b[r.i-digits] == '0')
	if r.i < len(r.b) {
		switch r.b[r.i] {
		case '.', 'e', 'E':
			r.ok = false
		}
	}
	return n
}

// plainText reports whether s is printable ASCII without a backslash:
// string content that JSON holds as it is. It checks eight bytes at a
// time: no high bit, no byte under 0x20, no 0x5c.
func plainText(s []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; len(s) >= 8; s = s[8:] {
		w := binary.LittleEndian.Uint64(s)
		x := w ^ ('\\' * ones)
		if (w|(w-0x20*ones)&^w|(x-ones)&^x)&highs != 0 {
			return false
		}
	}
	for _, c := range s {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}
