package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"sandview/client/internal/watch"
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
	// transport sends the requests; its context (ctx) lives as long as
	// the client, and all background work runs under it too.
	*transport
	// conns are the connections of the HTTP client the client made for
	// itself (nil when Options.HTTPClient is the caller's); Close closes
	// them.
	conns  *conns
	cancel context.CancelCauseFunc

	// Webhooks manages the webhooks of the service.
	Webhooks *WebhooksService

	// live is the live-mail side: watches, monitors, connection state
	// and background error reports (live.go).
	*live

	mu         sync.Mutex
	closed     bool
	serverInfo *model.ServerInfo
	loaded     *registry
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
		return nil, errors.New("an API key is required")
	}
	o.BaseURL = base
	o.APIKey = apiKey
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("invalid client options: %w", err)
	}
	t := &transport{opts: o.clone(), baseURL: base, http: o.HTTPClient}
	c := &Client{transport: t}
	if t.http == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		c.conns = newConns(tr.DialContext)
		tr.DialContext = c.conns.dialContext
		t.http = &http.Client{Transport: tr}
	}
	t.ctx, c.cancel = context.WithCancelCause(context.Background())
	c.Webhooks = &WebhooksService{t: t}
	c.loaded = &registry{ctx: t.ctx, changed: c.inboxesChanged}
	c.live = &live{t: t, reg: c.loaded, followers: map[*Monitor]bool{}, syncErrors: map[int]func(error){}}
	c.engine = watch.New(c.ctx, engineClient{c}, engineConfig(c.opts))
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

// Close cancels every request and all background work, and closes every
// connection of the HTTP client the client made for itself (one dialed
// after Close too). Later calls that would connect return
// ErrClientClosed. Close is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.mu.Unlock()
	if already {
		return nil
	}
	c.cancel(ErrClientClosed)
	if c.conns != nil {
		c.conns.closeAll()
	}
	return nil
}

// isClosed reports whether Close was called.
func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}
