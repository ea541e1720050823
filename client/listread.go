package client

import (
	"errors"
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Lists are split into their elements (splitList) and the elements
// decoded with jsonv1's options (github.com/go-json-experiment/json/v1):
// the Go team's implementation of encoding/json's rules, which Go 1.27's
// encoding/json is. An encrypted record is ~19 KB of base64;
// encoding/json's scanner reads it a byte at a time through a state
// function, which made it the largest cost of a list, ahead of the
// crypto. jsonv2 reads strings several times faster and the decoded
// records are the same.

// decodeList reads the JSON array of body and decodes its elements one
// at a time into a T (see decodeElement), passing each on in order with
// its decoding error: an element of the wrong shape costs only itself. A
// body that is not a JSON array (or is cut short, or holds an element
// that is not JSON) fails with errNotAList; a failure to read the body
// (typed by bodyReader) and each's errors are returned as they are.
func decodeList[T any](body io.Reader, each func(v T, err error) error) error {
	return splitList(body, func(raw []byte) error {
		v, err, fatal := decodeElement[T](raw)
		if fatal != nil {
			return fatal
		}
		return each(v, err)
	})
}

// decodeElement decodes one element of a list, as splitList found it,
// with jsonv1's rules. A value of the wrong shape is err, with v holding
// what could be decoded; an element that is not JSON is fatal (wrapping
// errNotAList): the body is no list.
//
// Under jsonv1's rules the decoder reads an element twice: it checks all
// of it before it decodes any (to report errors as encoding/json does).
// An element that decodes without error is read once, with errors
// reported as jsonv2 does, which changes nothing but errors; only an
// element with an error is decoded again under jsonv1's own rules, for
// its error and for what can be decoded of it.
func decodeElement[T any](raw []byte) (v T, err, fatal error) {
	if jsonv2.Unmarshal(raw, &v, jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false)) == nil {
		return v, nil, nil
	}
	var zero T
	v = zero
	err = jsonv2.Unmarshal(raw, &v, jsonv1.DefaultOptionsV1())
	var syntax *jsonv1.SyntaxError // jsontext's, as jsonv1 reports it
	if err != nil && (errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF)) {
		return v, nil, fmt.Errorf("%w: %w", errNotAList, err)
	}
	return v, err, nil
}

// errNotAList is the failure of a list body that is not a JSON array.
var errNotAList = errors.New("the server sent a list that is not a JSON array")
