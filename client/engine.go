package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"sandview/client/internal/watch"
	"sandview/model"
)

// The seam to the watch engine (package delivery): engineClient and
// engineInbox are all the engine knows of the client.

// engineConfig maps the options onto the engine's tuning.
func engineConfig(o Options) watch.Config {
	mode := watch.ModeAuto
	switch o.Strategy {
	case StrategySSE:
		mode = watch.ModeStream
	case StrategyPolling:
		mode = watch.ModePolling
	}
	return watch.Config{
		Mode:                     mode,
		PollingInterval:          o.PollingInterval,
		PollingMaxBackoff:        o.PollingMaxBackoff,
		PollingBackoffMultiplier: o.PollingBackoffMultiplier,
		PollingJitterFactor:      o.PollingJitterFactor,
		ReconnectInterval:        o.SSEReconnectInterval,
		MaxReconnectAttempts:     o.SSEMaxReconnectAttempts,
		MaxReconnectDelay:        o.SSEMaxReconnectDelay,
		ReconnectJitter:          o.SSEReconnectJitter,
	}
}

// engineClient is the client as the watch engine sees it.
type engineClient struct{ c *Client }

// errConnectTimeout is the cause of a stream's context when it did not
// open within SSEConnectionTimeout.
var errConnectTimeout = errors.New("connect timeout")

// OpenStream opens GET /api/events?inboxes=h1,h2&sandview=notices. The connection lives
// until ctx ends or the body is closed; opening takes at most
// SSEConnectionTimeout. Failures are *SSEError, except ErrClientClosed and
// the cause of ctx when it ended.
func (ec engineClient) OpenStream(ctx context.Context, hashes []string) (io.ReadCloser, error) {
	c := ec.c
	ctx, cancel := context.WithCancelCause(ctx)
	req, err := c.newRequest(ctx, http.MethodGet, "/api/events", nil, nil)
	if err != nil {
		cancel(nil)
		return nil, &SSEError{Err: err}
	}
	// Hashes are base64url: the comma-separated list needs no escaping.
	// sandview's server also sends deletion notices when asked; other
	// servers ignore the parameter.
	req.URL.RawQuery = "inboxes=" + strings.Join(hashes, ",") + "&" + model.StreamNoticesParam + "=" + model.StreamNoticesValue
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")

	timer := time.AfterFunc(c.opts.SSEConnectionTimeout, func() { cancel(errConnectTimeout) })
	resp, err := c.http.Do(req)
	timer.Stop()
	if err == nil && ctx.Err() != nil { // the timer fired just after the answer
		resp.Body.Close()
		err = context.Cause(ctx)
	}
	if err != nil {
		cause := context.Cause(ctx) // nil unless ctx ended: read before cancelling it
		cancel(nil)
		switch {
		case errors.Is(cause, errConnectTimeout):
			return nil, &SSEError{Err: &TimeoutError{Op: "open the event stream", After: c.opts.SSEConnectionTimeout}}
		case c.ctx.Err() != nil:
			return nil, ErrClientClosed
		case cause != nil:
			return nil, cause
		}
		return nil, &SSEError{Err: &NetworkError{URL: c.baseURL, Err: err}}
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
		resp.Body.Close()
		cancel(nil)
		r := request{method: http.MethodGet, path: "/api/events"}
		return nil, &SSEError{Err: mapStatus(r, response{
			status:     resp.StatusCode,
			body:       body,
			retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
			requestID:  requestID(resp.Header),
		})}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		cancel(nil)
		return nil, &SSEError{Err: fmt.Errorf("GET /api/events answered %q, not an event stream", resp.Header.Get("Content-Type"))}
	}
	return streamBody{ReadCloser: resp.Body, cancel: cancel}, nil
}

// streamBody is an event stream's body; Close also ends its context.
type streamBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b streamBody) Close() error {
	b.cancel(nil)
	return b.ReadCloser.Close()
}

func (ec engineClient) ReportSyncError(err error) { ec.c.reportSyncError(err) }

func (ec engineClient) ReportStreamError(err error) { ec.c.reportSyncError(&SSEError{Err: err}) }

func (ec engineClient) ReportFallback(cause error) {
	ec.c.reportSyncError(&StrategyError{
		Strategy: ec.c.opts.Strategy,
		Reason:   "the event stream is unavailable, falling back to polling",
		Err:      cause,
	})
}

func (ec engineClient) InboxGone(err error) bool {
	var gone *InboxNotFoundError
	return errors.As(err, &gone)
}

func (ec engineClient) StreamRefused(err error) bool {
	var status *APIError
	if !errors.As(err, &status) {
		return false
	}
	code := status.StatusCode
	return code >= 400 && code < 500 && code != http.StatusRequestTimeout && code != http.StatusTooManyRequests
}

// engineInbox is a loaded inbox as the watch engine sees it.
type engineInbox struct{ in *Inbox }

func (ei engineInbox) Hash() string { return ei.in.info.InboxHash }

func (ei engineInbox) Address() string { return ei.in.info.EmailAddress }

// ListIDs lists the ids of the inbox's emails in the server's order
// (newest first) without opening them: ids are not encrypted, and they are
// all delivery needs to find new mail. Only the records whose id meta
// accepts are decoded in full and their metadata opened (a sync's new
// mail, for subscribers that want the metadata only); one that cannot be
// opened is left out, to be fetched.
func (ei engineInbox) ListIDs(ctx context.Context, meta func(id string) bool) ([]string, map[string]model.Email, error) {
	var ids []string
	metas := map[string]model.Email{}
	err := ei.in.readList(ctx, ListOptions{}, func(body io.Reader) error {
		return splitList(body, func(raw []byte) error {
			rec, err, fatal := decodeElement[struct {
				ID any `json:"id"`
			}](raw)
			if fatal != nil {
				return fatal
			}
			if err != nil || rec.ID == nil { // a record of the wrong shape costs only itself
				return nil
			}
			id := fmt.Sprint(rec.ID)
			ids = append(ids, id)
			if meta != nil && meta(id) {
				full, decodeErr, _ := decodeElement[model.EmailRecord](raw)
				if e, err := ei.in.openListed(full, decodeErr); err == nil && e.ID == id {
					metas[id] = e
				}
			}
			return nil
		})
	})
	return ids, metas, err
}

func (ei engineInbox) Fetch(ctx context.Context, id string) (model.Email, bool, error) {
	e, err := ei.in.Email(ctx, id)
	var notFound *EmailNotFoundError
	return e, errors.As(err, &notFound), err
}

func (ei engineInbox) OpenNotification(ev model.StreamEvent) (model.Email, error) {
	return ei.in.OpenStreamEvent(ev)
}

// Poll fetches the sync status in one attempt, without the client's
// retries: the poller has its own schedule, and a 429 must pause all
// pollers at once.
func (ei engineInbox) Poll(ctx context.Context) (watch.Poll, error) {
	status, err := ei.in.syncStatus(ctx, false)
	if err != nil {
		var p watch.Poll
		var limited *RateLimitedError
		if errors.As(err, &limited) {
			p.RateLimited, p.RetryAfter = true, limited.RetryAfter
		}
		return p, err
	}
	return watch.Poll{EmailsHash: status.EmailsHash}, nil
}
