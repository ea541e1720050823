// Package mimeword decodes RFC 2047 encoded words in header values, in any
// charset the WHATWG encoding index knows. The server's mail parser and the
// TUI's Headers tab share it, so a header reads the same in both.
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
	decoder := mime.WordDecoder{CharsetReader: charsetReader}
	if decoded, err := decoder.DecodeHeader(value); err == nil {
		return decoded
	}
	return value
}

func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return input, nil
	}
	return enc.NewDecoder().Reader(input), nil
}
