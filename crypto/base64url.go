package crypto

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidBase64URL reports input that is not strict unpadded base64url
// (RFC 4648 section 5).
var ErrInvalidBase64URL = errors.New("invalid base64url")

// b64 is the strict, unpadded URL-safe encoding. It is never modified.
var b64 = base64.RawURLEncoding.Strict()

// EncodeBase64URL encodes b as base64url (RFC 4648 section 5) without '='
// padding.
func EncodeBase64URL(b []byte) string {
	return b64.EncodeToString(b)
}

// DecodeBase64URL decodes strict unpadded base64url. It rejects '+', '/',
// '=', any whitespace (including line breaks, which the standard decoder
// would skip), any other character outside the alphabet, impossible lengths
// and non-zero trailing bits.
func DecodeBase64URL(s string) ([]byte, error) {
	if err := checkNoLineBreaks(s); err != nil {
		return nil, err
	}
	b, err := b64.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidBase64URL, err)
	}
	return b, nil
}

// decodeBase64URLTo decodes s into dst, which must be exactly
// b64.DecodedLen(len(s)) bytes long, with the rules of DecodeBase64URL.
func decodeBase64URLTo(dst []byte, s string) error {
	if err := checkNoLineBreaks(s); err != nil {
		return err
	}
	// Without line breaks a successful decode fills exactly DecodedLen bytes.
	if _, err := b64.Decode(dst, []byte(s)); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidBase64URL, err)
	}
	return nil
}

// checkNoLineBreaks rejects '\r' and '\n', the only non-alphabet bytes the
// standard decoder silently skips.
func checkNoLineBreaks(s string) error {
	// Two IndexByte scans are vectorised; IndexAny walks byte by byte.
	if strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0 {
		return fmt.Errorf("%w: contains a line break", ErrInvalidBase64URL)
	}
	return nil
}
