package client

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Lists are read with jsontext and their records decoded with jsonv1's
// options (github.com/go-json-experiment/json/v1): the Go team's
// implementation of encoding/json's rules, which Go 1.27's encoding/json
// is. An
// encrypted record is ~19 KB of base64; encoding/json's scanner reads it
// a byte at a time through a state function, which made it the largest
// cost of a list, ahead of the crypto. jsontext reads strings several
// times faster and the decoded records are the same.

// decodeList reads the JSON array of body and decodes its elements one
// at a time into a T (jsonv1's rules, in one pass over the stream),
// passing each on in order with its decoding error: an element of the
// wrong shape costs only itself. A body that is not a JSON array (or is
// cut short) fails with errNotAList; a failure to read the body (typed
// by bodyReader) and each's errors are returned as they are.
func decodeList[T any](body io.Reader, each func(v T, err error) error) error {
	// Read in 64 KB: jsontext asks for little at a time.
	r := &failedRead{r: bufio.NewReaderSize(body, 64<<10)}
	var eachErr error
	err := readArray(jsontext.NewDecoder(r), func(v T, err error) error {
		eachErr = each(v, err)
		return eachErr
	})
	switch {
	case eachErr != nil:
		return eachErr
	case err == nil, errors.Is(err, errNotAList):
		return err
	case r.err != nil:
		return r.err
	}
	// What is left is jsontext's: a syntax error or the body's end.
	return fmt.Errorf("%w: %w", errNotAList, err)
}

// readArray reads '[', decodes and hands on each element, and reads ']'.
// Only a semantic error (a value of the wrong type, after which the
// decoder is past the element) is passed on with the element.
func readArray[T any](dec *jsontext.Decoder, each func(v T, err error) error) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for dec.PeekKind() != ']' {
		var v T
		before := dec.InputOffset()
		err := jsonv2.UnmarshalDecode(dec, &v, jsonv1.DefaultOptionsV1())
		var syntax *jsontext.SyntacticError
		if err != nil && (errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || dec.InputOffset() == before) {
			return err
		}
		if err := each(v, err); err != nil {
			return err
		}
	}
	return expectDelim(dec, ']')
}

// errNotAList is the failure of a list body that is not a JSON array.
var errNotAList = errors.New("the server sent a list that is not a JSON array")

// expectDelim reads the next token and checks that it is the delimiter.
func expectDelim(dec *jsontext.Decoder, want jsontext.Kind) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != want {
		return fmt.Errorf("%w: found %s where %s belongs", errNotAList, tok.Kind(), want)
	}
	return nil
}

// failedRead keeps the first failure to read r other than its end, so
// that it is reported as it is rather than as jsontext wraps it.
type failedRead struct {
	r   io.Reader
	err error
}

func (f *failedRead) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil && err != io.EOF && f.err == nil {
		f.err = err
	}
	return n, err
}
