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
	"sync"
	"time"

	"sandview/model"
)

const (
	// maxRetryAfter caps how long one Retry-After makes the client wait.
	maxRetryAfter = 60 * time.Second
	// maxReportedRetryAfter bounds the Retry-After kept for RateLimitedError.
	maxReportedRetryAfter = 24 * time.Hour
	// maxResponseBytes bounds how much of one response body is read.
	maxResponseBytes = 512 << 20
	// maxErrorBodyBytes bounds how much of an error body is read.
	maxErrorBodyBytes = 64 << 10
	userAgent         = "sandview"
)

// Client talks to one sandbox service. It is safe for concurrent use.
type Client struct {
	opts    Options
	baseURL string // no trailing slash
	http    *http.Client
	ownHTTP bool

	// ctx lives as long as the client; Close cancels it. Every request and
	// all background work run under it.
	ctx    context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	closed     bool
	serverInfo *model.ServerInfo
	registry   registry

	delivery delivery // subscriptions, stream and pollers (delivery.go)
}

// New returns a client for the service at baseURL using apiKey. The
// options start from DefaultOptions.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	o := DefaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	base, err := normalizeBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(apiKey) == "" {
		return nil, errors.New("an API key is required: pass --api-key or set SERVICE_API_KEY")
	}
	o.BaseURL = base
	o.APIKey = apiKey
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("invalid client options: %w", err)
	}
	c := &Client{opts: o.clone(), baseURL: base, http: o.HTTPClient}
	if c.http == nil {
		c.http = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		c.ownHTTP = true
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// normalizeBaseURL checks that raw is an absolute http(s) URL and drops a
// trailing slash.
func normalizeBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("a server URL is required, e.g. http://127.0.0.1:8025")
	}
	if !strings.Contains(raw, "://") {
		return "", fmt.Errorf("invalid server URL %q: it must start with http:// or https://, e.g. http://%s", raw, raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("invalid server URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("invalid server URL %q: it must start with http:// or https://", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("invalid server URL %q: it names no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("invalid server URL %q: it must not carry a query or fragment", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Options returns a copy of the client's options.
func (c *Client) Options() Options { return c.opts.clone() }

// BaseURL returns the service base URL without a trailing slash.
func (c *Client) BaseURL() string { return c.baseURL }

// Close cancels every request and all background work. Later calls that
// would connect return ErrClientClosed. Close is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.mu.Unlock()
	if already {
		return nil
	}
	c.cancel()
	if c.ownHTTP {
		c.http.CloseIdleConnections()
	}
	return nil
}

// isClosed reports whether Close was called.
func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// reportSyncError hands a background error to Options.OnSyncError.
func (c *Client) reportSyncError(err error) {
	if err != nil && c.opts.OnSyncError != nil {
		c.opts.OnSyncError(err)
	}
}

// notFoundFunc turns a 404 into the error class of its route; nil keeps
// the *APIError.
type notFoundFunc func(status *APIError) error

// request is one API call.
type request struct {
	method string
	path   string // escaped path below the base URL, starting with "/"
	query  url.Values
	body   any // JSON-encoded when non-nil
	// out receives the decoded JSON body of a 2xx answer; nil ignores it.
	out any
	// rawOut, when set, receives the undecoded body of a 2xx answer.
	rawOut   *[]byte
	notFound notFoundFunc
}

func (r request) op() string { return r.method + " " + r.path }

// response is the outcome of one attempt.
type response struct {
	status     int
	body       []byte
	retryAfter time.Duration
	requestID  string
}

// do runs a request with the retry rules of the contract and maps the
// outcome to the package's error classes.
func (c *Client) do(ctx context.Context, r request) error {
	if c.isClosed() {
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
			if attempt >= c.opts.MaxRetries {
				return &NetworkError{URL: c.baseURL, Err: err}
			}
			if err := c.sleep(ctx, c.backoff(attempt, 0)); err != nil {
				return c.contextError(ctx, r)
			}
			continue
		}
		if resp.status >= 200 && resp.status < 300 {
			if r.rawOut != nil {
				*r.rawOut = resp.body
			}
			return decodeBody(r, resp.body)
		}
		if slices.Contains(c.opts.RetryOn, resp.status) && attempt < c.opts.MaxRetries {
			if err := c.sleep(ctx, c.backoff(attempt, resp.retryAfter)); err != nil {
				return c.contextError(ctx, r)
			}
			continue
		}
		return mapStatus(r, resp)
	}
}

// withClientContext returns a context cancelled when ctx or the client's
// context ends.
func (c *Client) withClientContext(ctx context.Context) (context.Context, context.CancelFunc) {
	merged, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	return merged, func() {
		stop()
		cancel()
	}
}

// contextError explains why a request's context ended: the client was
// closed, or the caller's context was cancelled or ran out.
func (c *Client) contextError(ctx context.Context, r request) error {
	if c.ctx.Err() != nil {
		return ErrClientClosed
	}
	return fmt.Errorf("%s: %w", r.op(), context.Cause(ctx))
}

// backoff is the wait before retry n: RetryDelay·2^n, or the server's
// Retry-After (capped at maxRetryAfter) when that is longer.
func (c *Client) backoff(n int, retryAfter time.Duration) time.Duration {
	d := c.opts.RetryDelay << min(n, 30)
	if d < 0 { // overflow
		d = maxRetryAfter
	}
	return max(d, min(retryAfter, maxRetryAfter))
}

// sleep waits d or until ctx ends.
func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// attempt sends one HTTP request bounded by Options.Timeout and reads the
// whole answer. A transport failure returns the error; a per-request
// timeout returns a *TimeoutError.
func (c *Client) attempt(ctx context.Context, r request, body []byte) (response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := c.newRequest(ctx, r.method, r.path, r.query, body)
	if err != nil {
		return response{}, err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return response{}, c.transportError(ctx, r, err)
	}
	defer res.Body.Close()
	limit := int64(maxResponseBytes)
	if res.StatusCode >= 300 {
		limit = maxErrorBodyBytes
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit))
	if err != nil {
		return response{}, c.transportError(ctx, r, err)
	}
	return response{
		status:     res.StatusCode,
		body:       data,
		retryAfter: parseRetryAfter(res.Header.Get("Retry-After"), time.Now()),
		requestID:  requestID(res.Header),
	}, nil
}

// transportError classifies a failed exchange: per-request timeout, or a
// network failure (returned as is, to be retried).
func (c *Client) transportError(attemptCtx context.Context, r request, err error) error {
	if errors.Is(attemptCtx.Err(), context.DeadlineExceeded) && context.Cause(attemptCtx) == context.DeadlineExceeded {
		return &TimeoutError{Op: r.op(), After: c.opts.Timeout}
	}
	return err
}

// newRequest builds an authenticated request to path (already escaped)
// below the base URL.
func (c *Client) newRequest(ctx context.Context, method, path string, query url.Values, body []byte) (*http.Request, error) {
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

// Path helpers: every address and id is escaped as one path segment.

func inboxPath(address string) string {
	return "/api/inboxes/" + url.PathEscape(address)
}

func emailPath(address, id string) string {
	return inboxPath(address) + "/emails/" + url.PathEscape(id)
}

// mentionsInbox reports whether a 404 message is about the inbox (as
// opposed to the email or webhook named in the path).
func mentionsInbox(status *APIError) bool {
	return strings.Contains(strings.ToLower(status.Message), "inbox")
}

// inboxNotFound maps a 404 to InboxNotFoundError for address.
func inboxNotFound(address string) notFoundFunc {
	return func(status *APIError) error {
		return &InboxNotFoundError{Address: address, status: status}
	}
}

// emailNotFound maps a 404 to EmailNotFoundError for id, or to
// InboxNotFoundError when the server says the inbox is missing.
func emailNotFound(address, id string) notFoundFunc {
	return func(status *APIError) error {
		if mentionsInbox(status) {
			return &InboxNotFoundError{Address: address, status: status}
		}
		return &EmailNotFoundError{ID: id, status: status}
	}
}
