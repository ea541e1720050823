// Package linkcheck checks the links of an email: each link's HTTP status
// after redirects (HEAD, then GET when the server refuses HEAD), the
// redirect chain, a timeout per link and a few links at a time. A link
// that cannot be reached is a result ("unreachable"), never an error for
// the whole check. Loopback and private destinations are refused unless
// the user asked for them: the same rule as webhooks (client/netguard),
// enforced at every connection, so also on every redirect hop.
package linkcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"sandview/client/netguard"
)

// Defaults of Options.
const (
	DefaultTimeout = 5 * time.Second
	DefaultWorkers = 4
	// maxRedirects is the longest redirect chain followed.
	maxRedirects = 10
)

// The outcomes of a link.
const (
	OK          = "ok"          // a 2xx status after redirects
	Broken      = "broken"      // a 4xx or 5xx status, or too many redirects
	Unreachable = "unreachable" // no answer: DNS, connection, TLS, timeout
	NotChecked  = "not checked" // a private destination, or not http(s)
	Cancelled   = "cancelled"   // the check was cancelled before this link
)

// Options tune a check. The zero value is the default.
type Options struct {
	Timeout time.Duration // per link, redirects included; 0: DefaultTimeout
	Workers int           // links checked at a time; 0: DefaultWorkers
	// AllowPrivate checks loopback and private destinations too (the user
	// asked for them).
	AllowPrivate bool
	// Resolver looks the links' host names up; nil: the system's.
	Resolver netguard.Resolver
}

// Hop is one redirect: the URL asked and the status that sent it on.
type Hop struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
}

// Result is the check of one link.
type Result struct {
	URL       string `json:"url"`
	Outcome   string `json:"outcome"`
	Status    int    `json:"status,omitempty"` // the final HTTP status
	Method    string `json:"method,omitempty"` // HEAD, or GET when HEAD was refused
	Redirects []Hop  `json:"redirects,omitempty"`
	FinalURL  string `json:"finalUrl,omitempty"`
	// Error says why there is no status ("private address ...", "timeout
	// after 5s", "unreachable: connection refused").
	Error string `json:"error,omitempty"`
	// Private is set when the link was refused as a private destination.
	Private bool `json:"private,omitempty"`
}

// Checker checks links with one HTTP client.
type Checker struct {
	opts   Options
	rule   netguard.Rule
	client *http.Client
}

// New returns a checker.
func New(opts Options) *Checker {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	rule := netguard.Rule{AllowPrivate: opts.AllowPrivate}
	tr := rule.Transport(opts.Resolver)
	tr.MaxIdleConnsPerHost = opts.Workers
	c := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Checker{opts: opts, rule: rule, client: c}
}

// Close releases the idle connections.
func (c *Checker) Close() { c.client.CloseIdleConnections() }

// Check checks links, Workers at a time, and returns a result for each,
// in order (a link listed twice is checked once). When ctx ends, links
// not yet checked are Cancelled. done, if not nil, is called with each
// result as it is known (from the checking goroutines, one at a time).
func (c *Checker) Check(ctx context.Context, links []string, done func(i int, r Result)) []Result {
	results := make([]Result, len(links))
	first := map[string]int{} // link -> index of its first occurrence
	var todo []int
	for i, l := range links {
		if _, dup := first[l]; !dup {
			first[l] = i
			todo = append(todo, i)
		}
	}
	var mu sync.Mutex
	report := func(i int, r Result) {
		mu.Lock()
		defer mu.Unlock()
		results[i] = r
		if done != nil {
			done(i, r)
		}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(c.opts.Workers, max(len(todo), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				report(i, c.One(ctx, links[i]))
			}
		}()
	}
	for _, i := range todo {
		select {
		case jobs <- i:
		case <-ctx.Done():
			report(i, Result{URL: links[i], Outcome: Cancelled})
		}
	}
	close(jobs)
	wg.Wait()
	for i, l := range links {
		if j := first[l]; j != i {
			results[i] = results[j]
		}
	}
	return results
}

// One checks one link: HEAD, then GET when the server refuses HEAD.
func (c *Checker) One(ctx context.Context, link string) Result {
	r := Result{URL: link}
	if ctx.Err() != nil {
		r.Outcome = Cancelled
		return r
	}
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.Outcome, r.Error = NotChecked, "not checked: not an http(s) link"
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	if err := c.rule.CheckURL(ctx, link, nil); err != nil {
		return c.failed(ctx, r, err)
	}
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		r.Method, r.Redirects = method, nil
		if err := c.follow(ctx, &r, method, link); err != nil {
			return c.failed(ctx, r, err)
		}
		if method == http.MethodHead && headRefused(r.Status) {
			continue
		}
		break
	}
	switch {
	case r.Status >= 200 && r.Status < 300:
		r.Outcome = OK
	case r.Status >= 300 && r.Status < 400:
		r.Outcome, r.Error = Broken, fmt.Sprintf("more than %d redirects", maxRedirects)
	default:
		r.Outcome = Broken
	}
	return r
}

// headRefused reports whether a HEAD answer says "ask with GET": not
// allowed, not implemented, or refused by servers that only serve GET.
func headRefused(status int) bool {
	switch status {
	case http.StatusMethodNotAllowed, http.StatusNotImplemented, http.StatusBadRequest, http.StatusForbidden:
		return true
	}
	return false
}

// follow asks link with method and follows its redirects, recording them.
func (c *Checker) follow(ctx context.Context, r *Result, method, link string) error {
	resp, err := c.request(ctx, method, link, func(h Hop) { r.Redirects = append(r.Redirects, h) })
	if err != nil {
		return err
	}
	_, _ = io.CopyN(io.Discard, resp.Body, 4096) // a little, so that the connection may be reused
	resp.Body.Close()
	r.Status, r.FinalURL = resp.StatusCode, resp.Request.URL.String()
	if len(r.Redirects) == 0 {
		r.FinalURL = ""
	}
	return nil
}

// request asks link with method and follows its redirects (at most
// maxRedirects, each hop passed to hop), and returns the last answer, its
// body to be closed.
func (c *Checker) request(ctx context.Context, method, link string, hop func(Hop)) (*http.Response, error) {
	for i := 0; ; i++ {
		req, err := http.NewRequestWithContext(ctx, method, link, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", "sandview-linkcheck")
		resp, err := c.client.Do(req)
		if err != nil {
			return nil, err
		}
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode >= 400 || loc == "" {
			return resp, nil
		}
		next, err := req.URL.Parse(loc)
		if err != nil {
			resp.Body.Close()
			return nil, fmt.Errorf("bad redirect %q: %w", loc, err)
		}
		hop(Hop{URL: link, Status: resp.StatusCode})
		if i == maxRedirects {
			return resp, nil // too many: the caller sees the redirect
		}
		_, _ = io.CopyN(io.Discard, resp.Body, 4096)
		resp.Body.Close()
		link = next.String()
	}
}

// failed records why a link has no status.
func (c *Checker) failed(ctx context.Context, r Result, err error) Result {
	var forbidden *netguard.ForbiddenError
	var netErr net.Error
	switch {
	case errors.As(err, &forbidden):
		r.Outcome, r.Private = NotChecked, true
		r.Error = fmt.Sprintf("private address (%s %s): not checked", forbidden.Class, forbidden.Addr)
	case errors.Is(ctx.Err(), context.Canceled):
		r.Outcome = Cancelled
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		r.Outcome, r.Error = Unreachable, fmt.Sprintf("timeout after %s", c.opts.Timeout)
	default:
		r.Outcome, r.Error = Unreachable, "unreachable: "+cause(err)
	}
	r.Status = 0
	return r
}

// cause is the innermost message of an error ("connection refused", "no
// such host"), without the URL the wrappers repeat.
func cause(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		err = opErr.Err
	}
	return strings.TrimSpace(err.Error())
}
