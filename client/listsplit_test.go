package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// splitElement is the element type of the splitter's tests: an id of
// any shape and a number, so that elements can be of the wrong shape.
type splitElement struct {
	ID any `json:"id"`
	N  int `json:"n"`
}

// decodeListByTokens is how lists were read before splitList: jsontext
// reads the array and decodes each element off the stream. The splitter
// must agree with it on every body (see outcome).
func decodeListByTokens[T any](body io.Reader, each func(v T, err error) error) error {
	dec := jsontext.NewDecoder(body)
	tok, err := dec.ReadToken()
	if err != nil {
		return fmt.Errorf("%w: %w", errNotAList, err)
	}
	if tok.Kind() != '[' {
		return errNotAList
	}
	for dec.PeekKind() != ']' {
		var v T
		before := dec.InputOffset()
		err := jsonv2.UnmarshalDecode(dec, &v, jsonv1.DefaultOptionsV1())
		var syntax *jsontext.SyntacticError
		if err != nil && (errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || dec.InputOffset() == before) {
			return fmt.Errorf("%w: %w", errNotAList, err)
		}
		if err := each(v, err); err != nil {
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf("%w: %w", errNotAList, err)
	}
	return nil
}

// outcome is what a list reader made of a body: the elements in order
// (each with whether it failed to decode) and how the body ended.
func outcome(read func(io.Reader, func(splitElement, error) error) error, body io.Reader) string {
	var out bytes.Buffer
	err := read(body, func(v splitElement, err error) error {
		fmt.Fprintf(&out, "%#v %d %t\n", v.ID, v.N, err != nil)
		return nil
	})
	switch {
	case err == nil:
		out.WriteString("end")
	case errors.Is(err, errNotAList):
		out.WriteString("not a list")
	default:
		fmt.Fprintf(&out, "failed: %v", err)
	}
	return out.String()
}

// FuzzSplitList holds decodeList (splitList and decodeElement) to the
// reading by tokens it replaced: the same elements, decoded the same, and
// the same end, read whole or a byte at a time.
func FuzzSplitList(f *testing.F) {
	for _, seed := range []string{
		``, ` `, `[]`, ` [ ] `, `{}`, `null`, `"x"`, `[1,]`, `[,1]`, `[1 2]`, `[}`, `[{"id":"a"}`, `[{"id": tru}]`, `["abc]`,
		`[{"id":"a","n":1},{"id":2,"n":"x"},{"n":3}]`, `[{"id":2,"n":1},{"n":"x","id":"b"}]`, `[{"id":"a\"b\\","n":1} , {"id":["\\\"",{"k":"]}"}]}]`,
		`[1, "two", null, true, [3], {"id":{}}]`, `[{"id":"a"}]trailing`, `[{"id":"a"}x]`, `[{"id":[1}]]`,
		`[{"id":"a" "n":1}]`, `[{"id":"a",}]`, `[{"n":1e400}]`, "[{\"id\":\"\xff\"}]", `[{"id":"\ud800"}]`, `[01]`,
		`[{"id":"a"},{"id":"b"}`, `[{"id":"a"},`, `[-]`, `[{"n":-}]`, "[\"a\nb\"]", `[{"id":"a","id":"b"}]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		want := outcome(decodeListByTokens[splitElement], bytes.NewReader([]byte(body)))
		for _, r := range []io.Reader{bytes.NewReader([]byte(body)), iotest.OneByteReader(bytes.NewReader([]byte(body)))} {
			if got := outcome(decodeList[splitElement], r); !sameOutcome(got, want) {
				t.Fatalf("%q (%T):\nsplit:     %s\nby tokens: %s", body, r, got, want)
			}
		}
	})
}

// sameOutcome compares the outcomes of the splitter and of the reading by
// tokens. They agree on every list; on a body that is not one, the
// splitter may stop at an element the tokens read took in part (in
// [01], 0 with an error: the splitter finds 01 not JSON), so its
// elements are then those before the fault.
func sameOutcome(split, byTokens string) bool {
	const notAList = "not a list"
	if !strings.HasSuffix(split, notAList) || !strings.HasSuffix(byTokens, notAList) {
		return split == byTokens
	}
	return strings.HasPrefix(byTokens, strings.TrimSuffix(split, notAList))
}

// A record that is not JSON in the middle of a list opened by the worker
// pool: the records before it are passed on in order, then the list
// fails as no list and stop is called (the read of what follows ends).
func TestListPipelineStopsAtARecordThatIsNotJSON(t *testing.T) {
	withWorkers(t, 4)
	s := newSealedInbox(t)
	raw := s.records(t, 12)
	raw[7] = []byte(`{"id":"email-00007","encryptedMetadata":tru}`)
	body := []byte("[")
	for k, r := range raw {
		if k > 0 {
			body = append(body, ',')
		}
		body = append(body, r...)
	}
	body = append(body, ']')
	stopped := false
	var ids []string
	err := openRecords(s.inbox, bytes.NewReader(body), func() { stopped = true }, keep, func(l listedEmail) error {
		if l.err != nil {
			t.Errorf("%s: %v", l.id, l.err)
		}
		ids = append(ids, l.id)
		return nil
	})
	if !errors.Is(err, errNotAList) || !stopped || len(ids) != 7 || ids[6] != "email-00006" {
		t.Fatalf("emails %q, error %v, stop called %t", ids, err, stopped)
	}
}
