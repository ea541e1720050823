package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"sandview/client/internal/async"
	"sandview/model"
)

// request is one API call.
type request struct {
	method string
	path   string // escaped path below the base URL, starting with "/"
	query  url.Values
	body   any // JSON-encoded when non-nil
	// out receives the decoded JSON body of a 2xx answer; nil ignores it.
	out any
	// read, when set, reads the body of a 2xx answer as it arrives,
	// instead of out (see bodyReader). What it returns is the request's
	// outcome: it is not retried.
	read     func(io.Reader) error
	notFound notFoundFunc
	// once sends one attempt, without the client's retries.
	once bool
}

func (r request) op() string { return r.method + " " + r.path }

// response is the outcome of one attempt.
type response struct {
	status     int
	body       []byte
	retryAfter time.Duration
	requestID  string
	// readErr is what request.read returned (2xx answers with read set).
	readErr error
}

// transport is the client's HTTP plumbing: it builds authenticated
// requests, sends them with the contract's retries and timeouts, and maps
// the answers to the package's error classes.
type transport struct {
	opts    Options
	baseURL string // no trailing slash
	http    *http.Client
	// ctx lives as long as the client; Close cancels it with
	// ErrClientClosed as the cause. Every request runs under it.
	ctx context.Context
}

// do runs a request with the retry rules of the contract and maps the
// outcome to the package's error classes.
func (c *transport) do(ctx context.Context, r request) error {
	if c.ctx.Err() != nil {
		return ErrClientClosed
	}
	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(r.body); err != nil {
			return fmt.Errorf("%s: encode request: %w", r.op(), err)
		}
	}
	ctx, stop := c.withClientContext(ctx)
	defer stop()

	retries := c.opts.MaxRetries
	if r.once {
		retries = 0
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.attempt(ctx, r, body)
		if err != nil {
			if errors.Is(err, ErrClientClosed) || ctx.Err() != nil {
				return c.contextError(ctx, r)
			}
			var timeout *TimeoutError
			if errors.As(err, &timeout) {
				return err
			}
			if attempt >= retries {
				return &NetworkError{URL: c.baseURL, Err: err}
			}
			if err := async.Sleep(ctx, c.backoff(attempt, 0)); err != nil {
				return c.contextError(ctx, r)
			}
			continue
		}
		if resp.status >= 200 && resp.status < 300 {
			if r.read != nil {
				return resp.readErr
			}
			return decodeBody(r, resp.body)
		}
		if slices.Contains(c.opts.RetryOn, resp.status) && attempt < retries {
			if err := async.Sleep(ctx, c.backoff(attempt, resp.retryAfter)); err != nil {
				return c.contextError(ctx, r)
			}
			continue
		}
		return mapStatus(r, resp)
	}
}

// withClientContext returns a context cancelled when ctx or the client's
// context ends.
func (c *transport) withClientContext(ctx context.Context) (context.Context, context.CancelFunc) {
	merged, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	return merged, func() {
		stop()
		cancel()
	}
}

// contextError explains why a request's context ended: the client was
// closed, or the caller's context was cancelled or ran out.
func (c *transport) contextError(ctx context.Context, r request) error {
	if c.ctx.Err() != nil {
		return ErrClientClosed
	}
	return fmt.Errorf("%s: %w", r.op(), context.Cause(ctx))
}

// backoff is the wait before retry n: RetryDelay·2^n, or the server's
// Retry-After (capped at maxRetryAfter) when that is longer.
func (c *transport) backoff(n int, retryAfter time.Duration) time.Duration {
	d := c.opts.RetryDelay << min(n, 30)
	if d < 0 { // overflow
		d = maxRetryAfter
	}
	return max(d, min(retryAfter, maxRetryAfter))
}

// errAttemptTimedOut is the cause of an attempt's context when
// Options.Timeout ran out.
var errAttemptTimedOut = errors.New("the request timed out")

// attempt sends one HTTP request and reads the answer. Options.Timeout
// bounds the whole exchange, except that for a 2xx answer read by
// r.read it bounds the wait for the answer and then every wait for more
// of its body (see bodyReader). A transport failure returns the error; a
// per-request timeout returns a *TimeoutError.
func (c *transport) attempt(ctx context.Context, r request, body []byte) (response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(c.opts.Timeout, func() { cancel(errAttemptTimedOut) })
	defer timer.Stop()
	req, err := c.newRequest(ctx, r.method, r.path, r.query, body)
	if err != nil {
		return response{}, err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return response{}, c.transportError(ctx, r, err)
	}
	defer res.Body.Close()
	resp := response{
		status:     res.StatusCode,
		retryAfter: parseRetryAfter(res.Header.Get("Retry-After"), time.Now()),
		requestID:  requestID(res.Header),
	}
	if r.read != nil && res.StatusCode >= 200 && res.StatusCode < 300 {
		timer.Stop()
		resp.readErr = r.read(&bodyReader{c: c, ctx: ctx, r: r, body: res.Body, stall: timer})
		return resp, nil
	}
	limit := int64(maxResponseBytes)
	if res.StatusCode >= 300 {
		limit = maxErrorBodyBytes
	}
	if resp.body, err = io.ReadAll(io.LimitReader(res.Body, limit)); err != nil {
		return response{}, c.transportError(ctx, r, err)
	}
	return resp, nil
}

// transportError classifies a failed exchange: per-request timeout, or a
// network failure (returned as is, to be retried).
func (c *transport) transportError(attemptCtx context.Context, r request, err error) error {
	if context.Cause(attemptCtx) == errAttemptTimedOut {
		return &TimeoutError{Op: r.op(), After: c.opts.Timeout}
	}
	return err
}

// bodyReader reads a streamed answer (request.read). Options.Timeout
// bounds every wait inside Read, not the time the reader spends between
// reads, so a slow consumer of the records does not time the request
// out. At most maxResponseBytes are read. A failure while reading is
// final (records were handed on already): it comes back as
// *TimeoutError, *NetworkError, ErrClientClosed or the caller's context
// error.
type bodyReader struct {
	c     *transport
	ctx   context.Context // the attempt's
	r     request
	body  io.Reader
	stall *time.Timer // cancels ctx with errAttemptTimedOut
	n     int64
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.n >= maxResponseBytes {
		return 0, fmt.Errorf("%s: the answer is larger than %d MiB", b.r.op(), maxResponseBytes>>20)
	}
	p = p[:min(int64(len(p)), maxResponseBytes-b.n)]
	b.stall.Reset(b.c.opts.Timeout)
	n, err := b.body.Read(p)
	b.stall.Stop()
	b.n += int64(n)
	if err == nil || err == io.EOF {
		return n, err
	}
	switch {
	case context.Cause(b.ctx) == errAttemptTimedOut:
		err = &TimeoutError{Op: b.r.op(), After: b.c.opts.Timeout}
	case b.ctx.Err() != nil:
		err = b.c.contextError(b.ctx, b.r)
	default:
		err = &NetworkError{URL: b.c.baseURL, Err: err}
	}
	return n, err
}

// newRequest builds an authenticated request to path (already escaped)
// below the base URL.
func (c *transport) newRequest(ctx context.Context, method, path string, query url.Values, body []byte) (*http.Request, error) {
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, fmt.Errorf("%s %s: build request: %w", method, path, err)
	}
	req.Header.Set("X-API-Key", c.opts.APIKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// decodeBody decodes a 2xx body into r.out; an empty body leaves it alone.
func decodeBody(r request, body []byte) error {
	if r.out == nil || len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, r.out); err != nil {
		return fmt.Errorf("%s: the server sent an answer that is not the expected JSON: %w", r.op(), err)
	}
	return nil
}

// mapStatus turns a non-2xx answer into the error of its class.
func mapStatus(r request, resp response) error {
	status := &APIError{
		StatusCode: resp.status,
		Message:    errorMessage(resp.body),
		RequestID:  resp.requestID,
		Op:         r.op(),
	}
	switch resp.status {
	case http.StatusUnauthorized:
		return &UnauthorizedError{status: status}
	case http.StatusTooManyRequests:
		return &RateLimitedError{RetryAfter: resp.retryAfter, status: status}
	case http.StatusNotFound:
		if r.notFound != nil {
			return r.notFound(status)
		}
		return status
	case http.StatusRequestTimeout:
		return status
	}
	if resp.status >= 400 && resp.status < 500 {
		return &RefusedError{Reason: status.Message, status: status}
	}
	return status
}

// errorMessage extracts the message of an error body ({statusCode,
// message, error}); a body of another shape is returned as short text.
func errorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var eb model.ErrorBody
	if err := json.Unmarshal(body, &eb); err == nil {
		if msg := eb.Message.String(); msg != "" {
			return msg
		}
		if eb.Error != "" {
			return eb.Error
		}
	}
	text := strings.Join(strings.Fields(string(body)), " ")
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return text
}

// requestID returns the request id header a server may send.
func requestID(h http.Header) string {
	for _, name := range []string{"X-Request-Id", "X-Correlation-Id"} {
		if v := h.Get(name); v != "" {
			return v
		}
	}
	return ""
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
// Anything else, or a date in the past, is zero.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		// Clamp absurd values before converting, so the duration cannot overflow.
		return time.Duration(min(secs, maxReportedRetryAfter.Seconds()) * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil {
		if d := at.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
