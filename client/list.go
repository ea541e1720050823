package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"sort"

	"sandview/model"
)

// ListOptions choose what Emails and EachEmail fetch.
type ListOptions struct {
	// IncludeContent fetches bodies, headers, attachments, links and auth
	// results too; without it only metadata is returned (HasContent false).
	IncludeContent bool
}

// Emails returns every email of the inbox, newest first. An email that
// cannot be opened is still returned, with Problem set, and the returned
// error joins those failures (*DecryptionError, *ServerKeyMismatchError or
// a decoding error): callers that show lists use the slice and report the
// error. Request failures return a nil slice.
func (i *Inbox) Emails(ctx context.Context, opts ListOptions) ([]model.Email, error) {
	emails, err := collectEmails(func(yield func(model.Email, error) error) error {
		return i.EachEmail(ctx, opts, yield)
	})
	sortNewestFirst(emails)
	return emails, err
}

// collectEmails gathers what each passes on: the emails (never nil) and
// their failures to open, joined; a failure of each itself returns a nil
// slice.
func collectEmails(each func(yield func(model.Email, error) error) error) ([]model.Email, error) {
	emails := []model.Email{}
	var failures []error
	err := each(func(e model.Email, openErr error) error {
		emails = append(emails, e)
		if openErr != nil {
			failures = append(failures, openErr)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return emails, errors.Join(failures...)
}

// EachEmail calls fn with every email of the inbox in the order the server
// lists them (newest first on the service and its deployments; Emails
// also sorts by receivedAt). The list is read as it arrives: each record
// is decoded and opened on its own, by GOMAXPROCS workers with a few
// records in flight each, and handed to fn as soon as it and those before
// it are done, so memory does not grow with the inbox. An email that
// cannot be opened is passed with Problem set and openErr saying why
// (*DecryptionError, *ServerKeyMismatchError or a decoding error).
//
// EachEmail stops at fn's first error and returns it. Otherwise it returns
// a request failure, which can come after some emails were passed to fn
// when the connection fails while the list is read.
func (i *Inbox) EachEmail(ctx context.Context, opts ListOptions, fn func(e model.Email, openErr error) error) error {
	if i.info.Encrypted {
		if _, err := i.openerFor(ctx); err != nil {
			return err
		}
	}
	var fnErr error
	err := i.readList(ctx, opts, func(dec *json.Decoder) error {
		return i.openRecords(dec, func(e model.Email, openErr error) error {
			fnErr = fn(e, openErr)
			return fnErr
		})
	})
	if fnErr != nil {
		return fnErr
	}
	return err
}

// emailIDs lists the ids of the inbox's emails in the server's order
// (newest first) without opening them: ids are not encrypted, and they are
// all delivery needs to find new mail.
func (i *Inbox) emailIDs(ctx context.Context) ([]string, error) {
	var ids []string
	err := i.readList(ctx, ListOptions{}, func(dec *json.Decoder) error {
		for dec.More() {
			var rec struct {
				ID any `json:"id"`
			}
			err := dec.Decode(&rec)
			var notObject *json.UnmarshalTypeError
			if errors.As(err, &notObject) {
				continue // the decoder is past the element: it costs only itself
			}
			if err != nil {
				return err
			}
			if rec.ID != nil {
				ids = append(ids, fmt.Sprint(rec.ID))
			}
		}
		return nil
	})
	return ids, err
}

// readList requests the inbox's list of email records and hands read a
// decoder positioned at the first record (see decodeList). An answer that
// the inbox is not found ends its watches (delivery stops: it is gone).
func (i *Inbox) readList(ctx context.Context, opts ListOptions, read func(dec *json.Decoder) error) error {
	err := i.c.do(ctx, request{
		method:   http.MethodGet,
		path:     inboxPath(i.info.EmailAddress) + "/emails",
		query:    url.Values{"includeContent": {fmt.Sprint(opts.IncludeContent)}},
		notFound: inboxNotFound(i.info.EmailAddress),
		read:     func(body io.Reader) error { return decodeList(body, read) },
	})
	if err != nil {
		var gone *InboxNotFoundError
		if errors.As(err, &gone) {
			i.c.engine.MarkGone(i.info.InboxHash, err)
		}
		return fmt.Errorf("list emails of %s: %w", i.info.EmailAddress, err)
	}
	return nil
}

// decodeList reads a JSON array from body: read takes the elements while
// dec.More().
func decodeList(body io.Reader, read func(dec *json.Decoder) error) error {
	dec := json.NewDecoder(body)
	err := expectDelim(dec, '[')
	if err == nil {
		err = read(dec)
	}
	if err == nil {
		err = expectDelim(dec, ']')
	}
	return notJSONList(err)
}

// errNotAList is the failure of a list body that is not a JSON array.
var errNotAList = errors.New("the server sent a list that is not a JSON array")

// expectDelim reads the next token and checks that it is the delimiter.
func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("%w: found %v where %v belongs", errNotAList, tok, want)
	}
	return nil
}

// notJSONList explains a list body the decoder could not read; failures
// of the connection (typed by bodyReader already) and of the list's
// consumer are returned as they are.
func notJSONList(err error) error {
	var syntax *json.SyntaxError
	switch {
	case err == nil, errors.Is(err, errNotAList):
		return err
	// The decoder returns these two unwrapped; a connection failure that
	// wraps one is a *NetworkError and stays one.
	case errors.As(err, &syntax), err == io.ErrUnexpectedEOF, err == io.EOF:
		return fmt.Errorf("%w: %w", errNotAList, err)
	}
	return err
}

// listed is a record as decoded off a list; err is a failure to decode
// this record alone (a field of the wrong type), which the decoder is past.
type listed struct {
	rec model.EmailRecord
	err error
}

// decodeListed decodes the next record of a list. Only a record of the
// wrong shape is reported in listed.err; any other error ends the list.
func decodeListed(dec *json.Decoder) (listed, error) {
	var l listed
	err := dec.Decode(&l.rec)
	var wrongType *json.UnmarshalTypeError
	if errors.As(err, &wrongType) {
		l.err = err
		return l, nil
	}
	return l, err
}

// opened is a record opened by a worker of openRecords.
type opened struct {
	email model.Email
	err   error
}

// openJob is a record for a worker; the result goes to done.
type openJob struct {
	rec  listed
	done chan<- opened
}

// openRecords decodes the records of dec one at a time (on a goroutine of
// its own), opens them on a pool of GOMAXPROCS workers and passes them to
// yield in list order, each as soon as it and those before it are open.
// About two records a worker are in flight (decoded and not passed on
// yet). When yield fails, the decoding goroutine stops at its next
// record, or when the body is closed.
func (i *Inbox) openRecords(dec *json.Decoder, yield func(model.Email, error) error) error {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 {
		for dec.More() {
			l, err := decodeListed(dec)
			if err != nil {
				return err
			}
			if err := yield(i.openListed(l)); err != nil {
				return err
			}
		}
		return nil
	}
	window := 2 * workers
	jobs := make(chan openJob, window)
	inOrder := make(chan chan opened, window) // its capacity bounds what is in flight
	quit := make(chan struct{})
	var readErr error // written before inOrder is closed
	go func() {
		defer close(inOrder)
		defer close(jobs)
		for dec.More() {
			l, err := decodeListed(dec)
			if err != nil {
				readErr = err
				return
			}
			done := make(chan opened, 1)
			select {
			case inOrder <- done:
			case <-quit:
				return
			}
			jobs <- openJob{rec: l, done: done}
		}
	}()
	for range workers {
		go func() {
			for j := range jobs {
				e, err := i.openListed(j.rec)
				j.done <- opened{e, err}
			}
		}()
	}
	for done := range inOrder {
		next := <-done
		if err := yield(next.email, next.err); err != nil {
			close(quit)
			return err
		}
	}
	return readErr
}

// openListed opens one record of a list; a record that did not decode
// becomes an email with Problem set.
func (i *Inbox) openListed(l listed) (model.Email, error) {
	if l.err != nil {
		e := model.Email{ID: l.rec.ID, Problem: ProblemUnreadable, InboxHash: i.info.InboxHash}
		return e, fmt.Errorf("email %s: the server sent a record that cannot be decoded: %w", e.ID, l.err)
	}
	return i.OpenRecord(l.rec)
}

// sortNewestFirst orders emails by receivedAt, newest first, keeping the
// server's order among equal times.
func sortNewestFirst(emails []model.Email) {
	sort.SliceStable(emails, func(a, b int) bool {
		return emails[a].ReceivedAt.After(emails[b].ReceivedAt)
	})
}
