// Package mimeword decodes RFC 2047 encoded words in header values, in any
// charset the WHATWG encoding index knows. The server's mail parser and the
// TUI's Headers tab share it, and model reads address lists with it, so a
// header reads the same everywhere.
package mimeword

import (
	"io"
	"mime"
	"strings"

	"golang.org/x/text/encoding/htmlindex"
)

// Decode returns value with its encoded words decoded. A value without
// encoded words, or one that does not decode, is returned as it is; an
// unknown charset keeps its bytes (callers make them valid UTF-8).
func Decode(value string) string {
	if !strings.Contains(value, "=?") {
		return value
	}
	if decoded, err := WordDecoder().DecodeHeader(value); err == nil {
		return decoded
	}
	return value
}

// WordDecoder is the decoder Decode uses, for parsers that take one
// (net/mail's AddressParser).
func WordDecoder() *mime.WordDecoder {
	return &mime.WordDecoder{CharsetReader: charsetReader}
}

func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return input, nil
	}
	return enc.NewDecoder().Reader(input), nil
}
