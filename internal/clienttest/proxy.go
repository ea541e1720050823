package clienttest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/internal/testproxy"
)

// EventProxy is a reverse proxy in front of a real server whose
// /api/events can be made to fail, and which records the stream requests.
type EventProxy struct {
	*httptest.Server
	rp      *httputil.ReverseProxy
	mu      sync.Mutex
	mode    string // "", "503", "400" or "hang"
	queries []string
	// queried is signalled (never blocking) when a stream request comes.
	queried chan struct{}
	// syncStatus, when non-zero, is answered to /sync requests.
	syncStatus int
	syncTimes  []time.Time
	streams    []context.CancelFunc
}

// NewEventProxy starts a proxy to target, stopped when the test ends.
func NewEventProxy(t *testing.T, target string) *EventProxy {
	p := &EventProxy{rp: testproxy.New(t, target), queried: make(chan struct{}, 1)}
	p.Server = httptest.NewServer(p)
	t.Cleanup(p.Close)
	return p
}

// Set makes /api/events answer 503, hang or answer 400 ("503", "hang",
// "400"), or pass through ("").
func (p *EventProxy) Set(mode string) {
	p.mu.Lock()
	p.mode = mode
	p.mu.Unlock()
}

// DropStreams ends every open event stream.
func (p *EventProxy) DropStreams() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cancel := range p.streams {
		cancel()
	}
	p.streams = nil
}

// EventQueries returns the inboxes= lists of the stream requests so far.
func (p *EventProxy) EventQueries() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.queries...)
}

// WaitQuery waits until a stream request after the first `after` asks
// for inboxes=query exactly.
func (p *EventProxy) WaitQuery(t *testing.T, query string, after int, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		queries := p.EventQueries()
		for _, q := range queries[min(after, len(queries)):] {
			if q == query {
				return
			}
		}
		select {
		case <-p.queried:
		case <-deadline:
			t.Fatalf("no stream request for %q within %s; requests: %q", query, within, queries)
		}
	}
}

// ServeHTTP proxies a request, failing /api/events as set.
func (p *EventProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	mode, syncStatus := p.mode, p.syncStatus
	if r.URL.Path == "/api/events" {
		p.queries = append(p.queries, r.URL.Query().Get("inboxes"))
		select {
		case p.queried <- struct{}{}:
		default:
		}
	}
	if strings.HasSuffix(r.URL.Path, "/sync") {
		p.syncTimes = append(p.syncTimes, time.Now())
	}
	p.mu.Unlock()
	if strings.HasSuffix(r.URL.Path, "/sync") {
		if syncStatus != 0 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(syncStatus)
			fmt.Fprintf(w, `{"statusCode":%d,"message":"slow down"}`, syncStatus)
			return
		}
	}
	if r.URL.Path == "/api/events" {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		r = r.WithContext(ctx)
		p.mu.Lock()
		p.streams = append(p.streams, cancel)
		p.mu.Unlock()
		switch mode {
		case "503":
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"statusCode":503,"message":"stream unavailable","error":"Service Unavailable"}`)
			return
		case "hang":
			<-r.Context().Done()
			return
		case "400": // a deployment that knows none of the hashes
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"statusCode":400,"message":"No matching inbox hashes","error":"Bad Request"}`)
			return
		}
	}
	p.rp.ServeHTTP(w, r)
}

// SetSyncStatus makes the proxy answer the sync requests with status
// (and Retry-After: 1); zero passes them through again.
func (p *EventProxy) SetSyncStatus(status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.syncStatus = status
}

// SyncTimes returns when the sync requests came.
func (p *EventProxy) SyncTimes() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.syncTimes...)
}
