package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"sort"
	"sync"

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
// is decoded off the body, then opened on its own by one of GOMAXPROCS
// workers, and handed to fn as soon as it and those before it
// are done, so memory does not grow with the inbox and every core opens
// mail. An email that cannot be opened is passed with Problem set and
// openErr saying why (*DecryptionError, *ServerKeyMismatchError or a
// decoding error).
//
// EachEmail stops at fn's first error and returns it, after its
// goroutines have ended. Otherwise it returns a request failure, which
// can come after some emails were passed to fn when the connection fails
// while the list is read.
func (i *Inbox) EachEmail(ctx context.Context, opts ListOptions, fn func(e model.Email, openErr error) error) error {
	return EachEmailAs(ctx, i, opts, func(e model.Email, openErr error) opened {
		return opened{e, openErr}
	}, func(o opened) error {
		return fn(o.email, o.err)
	})
}

// EachEmailAs is EachEmail with a step of the caller's own on the
// workers: prepare turns each email (and its failure to open) into what
// fn is given, e.g. the text that prints it, so that this work too is
// spread over the cores. prepare is called concurrently and in any order;
// fn is called on the caller's goroutine, in list order.
func EachEmailAs[T any](ctx context.Context, i *Inbox, opts ListOptions, prepare func(e model.Email, openErr error) T, fn func(T) error) error {
	if i.info.Encrypted {
		if _, err := i.openerFor(ctx); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var fnErr error
	err := i.readList(ctx, opts, func(body io.Reader) error {
		return openRecords(i, body, cancel, prepare, func(v T) error {
			fnErr = fn(v)
			return fnErr
		})
	})
	if fnErr != nil {
		return fnErr
	}
	return err
}

// readList requests the inbox's list of email records and hands read
// the body as it arrives (see decodeList). An answer that the inbox is
// not found ends its watches (delivery stops: it is gone).
func (i *Inbox) readList(ctx context.Context, opts ListOptions, read func(body io.Reader) error) error {
	err := i.c.do(ctx, request{
		method:   http.MethodGet,
		path:     inboxPath(i.info.EmailAddress) + "/emails",
		query:    url.Values{"includeContent": {fmt.Sprint(opts.IncludeContent)}},
		notFound: inboxNotFound(i.info.EmailAddress),
		read:     read,
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

// opened is an email and its failure to open.
type opened struct {
	email model.Email
	err   error
}

// errStopped ends the reading of a list whose consumer failed.
var errStopped = errors.New("the list's consumer stopped")

// openRecords splits the list body into its records (on a goroutine of
// its own), decodes, opens and prepares them on a pool of GOMAXPROCS
// workers and passes them to yield in list order, each as soon as it and
// those before it are ready. About two records a worker are in flight
// (read and not passed on yet). When yield fails, or a record turns out
// not to be JSON (the body is no list: decodeList's failure),
// openRecords calls stop (which must end any read of body that is
// waiting, e.g. by cancelling its request) and returns that error once
// its goroutines have ended; records still queued are dropped.
func openRecords[T any](i *Inbox, body io.Reader, stop func(), prepare func(model.Email, error) T, yield func(T) error) error {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 {
		return decodeList(body, func(rec model.EmailRecord, err error) error {
			return yield(prepare(i.openListed(rec, err)))
		})
	}
	type result struct {
		v     T
		fatal error // the record is not JSON
	}
	type job struct {
		raw  []byte
		done chan<- result
	}
	window := 2 * workers
	jobs := make(chan job, window)
	inOrder := make(chan chan result, window) // its capacity bounds what is in flight
	quit := make(chan struct{})
	var wg sync.WaitGroup
	var readErr error // written before inOrder is closed
	wg.Go(func() {
		defer close(inOrder)
		defer close(jobs)
		readErr = splitList(body, func(raw []byte) error {
			done := make(chan result, 1)
			select {
			case inOrder <- done:
			case <-quit:
				return errStopped
			}
			jobs <- job{raw: bytes.Clone(raw), done: done}
			return nil
		})
	})
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				select {
				case <-quit: // nobody waits for it
				default:
					rec, err, fatal := decodeElement[model.EmailRecord](j.raw)
					if fatal != nil {
						j.done <- result{fatal: fatal}
						continue
					}
					j.done <- result{v: prepare(i.openListed(rec, err))}
				}
			}
		})
	}
	var failed error // yield's or a record's
	for done := range inOrder {
		r := <-done
		if failed = r.fatal; failed == nil {
			failed = yield(r.v)
		}
		if failed != nil {
			close(quit)
			stop()
			break
		}
	}
	wg.Wait()
	if failed != nil {
		return failed
	}
	return readErr
}

// openListed opens one record of a list; a record that did not decode
// (decodeErr) becomes an email with Problem set.
func (i *Inbox) openListed(rec model.EmailRecord, decodeErr error) (model.Email, error) {
	if decodeErr != nil {
		e := model.Email{ID: rec.ID, Problem: ProblemUnreadable, InboxHash: i.info.InboxHash}
		return e, fmt.Errorf("email %s: the server sent a record that cannot be decoded: %w", e.ID, decodeErr)
	}
	return i.OpenRecord(rec)
}

// sortNewestFirst orders emails by receivedAt, newest first, keeping the
// server's order among equal times.
func sortNewestFirst(emails []model.Email) {
	sort.SliceStable(emails, func(a, b int) bool {
		return emails[a].ReceivedAt.After(emails[b].ReceivedAt)
	})
}
