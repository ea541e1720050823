package client

import (
	"bytes"
	"fmt"
	"io"
)

// A list is split into its elements before they are decoded: the
// splitter only finds where each element ends (strings are skipped with
// bytes.IndexByte, brackets counted), so the one goroutine that reads a
// long list does little per byte, and each element is decoded, and
// checked to be JSON, by whoever opens it (see decodeElement). An
// encrypted record is ~20 KB of base64 strings, which the splitter
// crosses at memchr speed.

// splitList reads the JSON array of body and hands each of its elements,
// as its raw text, to each, in order and as soon as the element's end
// has arrived. raw is only valid until each returns. A body that is not
// a JSON array (wrong separators, brackets that do not close, cut
// short) fails with errNotAList once the elements before the fault were
// handed on; an element's own syntax is not checked here. A failure to
// read body and each's errors are returned as they are.
func splitList(body io.Reader, each func(raw []byte) error) error {
	s := &listSplitter{r: body, buf: make([]byte, 0, 64<<10)}
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c != '[' {
		return fmt.Errorf("%w: it starts with %q", errNotAList, c)
	}
	s.pos++
	for first := true; ; first = false {
		if c, err = s.peek(); err != nil {
			return err
		}
		if c == ']' && first {
			return nil
		}
		raw, err := s.value()
		if err != nil {
			return err
		}
		if err := each(raw); err != nil {
			return err
		}
		if c, err = s.peek(); err != nil {
			return err
		}
		s.pos++
		switch c {
		case ']':
			return nil
		case ',':
		default:
			return fmt.Errorf("%w: found %q after an element, where ',' or ']' belongs", errNotAList, c)
		}
	}
}

// listSplitter holds the part of a list body being split: buf[pos:] is
// read and not handed on yet.
type listSplitter struct {
	r   io.Reader
	buf []byte
	pos int
	err error // the read failure that ended the body (io.EOF at its end)
}

// peek skips whitespace and returns the next byte without consuming it.
func (s *listSplitter) peek() (byte, error) {
	for {
		for ; s.pos < len(s.buf); s.pos++ {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
			default:
				return c, nil
			}
		}
		if err := s.more(s.pos); err != nil {
			return 0, err
		}
	}
}

// value finds the end of the value at pos and returns its text, leaving
// pos after it. An object or array ends where its brackets close (of any
// kind: decoding the element checks that they match), a string at its
// closing quote, anything else before the next delimiter.
func (s *listSplitter) value() ([]byte, error) {
	start, i := s.pos, s.pos
	need := func() error { // more of the body, keeping buf[start:]
		shift := start
		err := s.more(start)
		start, i = start-shift, i-shift
		return err
	}
	switch s.buf[i] {
	case '"':
		i++
		for !s.stringEnd(&i) {
			if err := need(); err != nil {
				return nil, err
			}
		}
	case '{', '[':
		for depth := 0; ; {
			if i == len(s.buf) {
				if err := need(); err != nil {
					return nil, err
				}
				continue
			}
			switch s.buf[i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			case '"':
				i++
				for !s.stringEnd(&i) {
					if err := need(); err != nil {
						return nil, err
					}
				}
				continue
			}
			i++
			if depth == 0 {
				break
			}
		}
	case ',', ':', '}', ']':
		return nil, fmt.Errorf("%w: found %q where an element belongs", errNotAList, s.buf[i])
	default:
		for {
			if i == len(s.buf) {
				if err := need(); err != nil {
					return nil, err
				}
				continue
			}
			if c := s.buf[i]; c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			i++
		}
	}
	s.pos = i
	return s.buf[start:i], nil
}

// stringEnd moves *i, which is inside a string, past its closing quote
// and reports true, or to the end of buf and reports false.
func (s *listSplitter) stringEnd(i *int) bool {
	for {
		q := bytes.IndexByte(s.buf[*i:], '"')
		if q < 0 {
			*i = len(s.buf)
			return false
		}
		q += *i
		*i = q + 1
		backslashes := 0
		for k := q - 1; k >= 0 && s.buf[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return true
		}
	}
}

// more reads more of the body after dropping buf[:keep] (pos moves with
// it). The end of the body before the list's is errNotAList; a failure to
// read is returned as it is.
func (s *listSplitter) more(keep int) error {
	n := copy(s.buf, s.buf[keep:])
	s.buf, s.pos = s.buf[:n], s.pos-keep
	if n == cap(s.buf) {
		s.buf = append(s.buf, make([]byte, n)...)[:n]
	}
	for s.err == nil {
		got, err := s.r.Read(s.buf[n:cap(s.buf)])
		s.buf = s.buf[:n+got]
		s.err = err
		if got > 0 {
			return nil
		}
	}
	if s.err == io.EOF {
		return fmt.Errorf("%w: %w", errNotAList, io.ErrUnexpectedEOF)
	}
	return s.err
}
