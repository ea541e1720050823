package client_test

// httptest is used here only for what a real server cannot be made to do on
// demand: 5xx storms, 429 with Retry-After, dropped connections, stalls.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandview/client"
	"sandview/model"
)

// recorder counts requests and their arrival times.
type recorder struct {
	mu    sync.Mutex
	times []time.Time
	keys  []string
}

func (r *recorder) record(req *http.Request) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.times = append(r.times, time.Now())
	r.keys = append(r.keys, req.Header.Get("X-API-Key"))
	return len(r.times)
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.times)
}

func (r *recorder) gap(i int) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.times[i].Sub(r.times[i-1])
}

// scripted serves statuses in order (the last one repeats).
func scripted(t *testing.T, rec *recorder, statuses []int, header http.Header) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := rec.record(r)
		status := statuses[min(n, len(statuses))-1]
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		if status == http.StatusOK {
			_, _ = w.Write([]byte(`{"ok":true}`))
		} else {
			fmt.Fprintf(w, `{"statusCode":%d,"message":"scripted failure","error":"x"}`, status)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newTestClient(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(url, "test-key", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestRetryFiveHundredThenSuccess(t *testing.T) {
	var rec recorder
	srv := scripted(t, &rec, []int{500, 503, 200}, nil)
	c := newTestClient(t, srv.URL, client.WithRetries(3, 5*time.Millisecond))
	ok, err := c.CheckKey(context.Background())
	if err != nil || !ok {
		t.Fatalf("CheckKey = %v, %v", ok, err)
	}
	if rec.count() != 3 {
		t.Fatalf("%d requests, want 3", rec.count())
	}
	// Backoff doubles: 5 ms before retry 0, 10 ms before retry 1.
	if rec.gap(1) < 5*time.Millisecond || rec.gap(2) < 10*time.Millisecond {
		t.Fatalf("gaps %v %v", rec.gap(1), rec.gap(2))
	}
	for _, k := range rec.keys {
		if k != "test-key" {
			t.Fatalf("X-API-Key %q", k)
		}
	}
}

func TestRetryConstantFiveHundredGivesUp(t *testing.T) {
	var rec recorder
	srv := scripted(t, &rec, []int{503}, nil)
	c := newTestClient(t, srv.URL, client.WithRetries(3, time.Millisecond))
	_, err := c.ServerInfo(context.Background())
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Message != "scripted failure" {
		t.Fatalf("error %v", err)
	}
	if rec.count() != 4 {
		t.Fatalf("%d requests, want 1+maxRetries = 4", rec.count())
	}
}

func TestFourHundredFailsAtOnce(t *testing.T) {
	for _, status := range []int{400, 403, 404, 422} {
		var rec recorder
		srv := scripted(t, &rec, []int{status}, nil)
		c := newTestClient(t, srv.URL, client.WithRetries(3, time.Millisecond))
		_, err := c.ServerInfo(context.Background())
		var apiErr *client.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
			t.Fatalf("%d: error %v", status, err)
		}
		if rec.count() != 1 {
			t.Fatalf("%d: %d requests, want 1", status, rec.count())
		}
	}
}

func TestUnauthorized(t *testing.T) {
	var rec recorder
	srv := scripted(t, &rec, []int{401}, nil)
	c := newTestClient(t, srv.URL, client.WithRetries(3, time.Millisecond))
	ok, err := c.CheckKey(context.Background())
	if ok || err != nil {
		t.Fatalf("CheckKey with a rejected key = %v, %v; want false, nil", ok, err)
	}
	_, err = c.ServerInfo(context.Background())
	var unauthorized *client.UnauthorizedError
	var apiErr *client.APIError
	if !errors.As(err, &unauthorized) || !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(err.Error(), "the server rejected the API key (401): it is wrong or was revoked") {
		t.Fatalf("message %q", err)
	}
	if rec.count() != 2 {
		t.Fatalf("401 was retried: %d requests", rec.count())
	}
}

func TestRetryAfterSecondsIsHonoured(t *testing.T) {
	var rec recorder
	srv := scripted(t, &rec, []int{429, 200}, http.Header{"Retry-After": {"1"}})
	c := newTestClient(t, srv.URL, client.WithRetries(3, time.Millisecond))
	if _, err := c.CheckKey(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rec.count() != 2 {
		t.Fatalf("%d requests", rec.count())
	}
	if gap := rec.gap(1); gap < time.Second {
		t.Fatalf("retried after %v despite Retry-After: 1", gap)
	}
}

func TestRetryAfterHTTPDateIsHonoured(t *testing.T) {
	var rec recorder
	// An HTTP date has whole seconds: two seconds ahead means at least one.
	when := time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)
	srv := scripted(t, &rec, []int{429, 200}, http.Header{"Retry-After": {when}})
	c := newTestClient(t, srv.URL, client.WithRetries(1, time.Millisecond))
	if _, err := c.CheckKey(context.Background()); err != nil {
		t.Fatal(err)
	}
	if gap := rec.gap(1); gap < time.Second {
		t.Fatalf("retried after %v despite Retry-After %s", gap, when)
	}
}

func TestRateLimitedAfterRetries(t *testing.T) {
	var rec recorder
	srv := scripted(t, &rec, []int{429}, http.Header{"Retry-After": {"0.01"}})
	c := newTestClient(t, srv.URL, client.WithRetries(2, time.Millisecond))
	_, err := c.ServerInfo(context.Background())
	var limited *client.RateLimitedError
	var apiErr *client.APIError
	if !errors.As(err, &limited) || limited.RetryAfter != 10*time.Millisecond || !errors.As(err, &apiErr) || apiErr.StatusCode != 429 {
		t.Fatalf("error %v", err)
	}
	if rec.count() != 3 {
		t.Fatalf("%d requests", rec.count())
	}
}

func TestRetryWaitRespectsContext(t *testing.T) {
	var rec recorder
	srv := scripted(t, &rec, []int{503}, http.Header{"Retry-After": {"30"}})
	c := newTestClient(t, srv.URL, client.WithRetries(3, time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.ServerInfo(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("waited %v past the context", took)
	}
}

// A listener that accepts and drops every connection: a network failure
// that is retried, then reported as *NetworkError.
func TestNetworkFailureIsRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.Close()
		}
	}()
	c := newTestClient(t, "http://"+ln.Addr().String(), client.WithRetries(2, time.Millisecond))
	_, err = c.ServerInfo(context.Background())
	var network *client.NetworkError
	if !errors.As(err, &network) {
		t.Fatalf("error %v", err)
	}
	if n := accepted.Load(); n < 3 {
		t.Fatalf("%d connections, want at least 1+maxRetries = 3", n)
	}
}

func TestUnreachableServer(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	c := newTestClient(t, url, client.WithRetries(1, time.Millisecond))
	_, err := c.CheckKey(context.Background())
	var network *client.NetworkError
	if !errors.As(err, &network) {
		t.Fatalf("error %v", err)
	}
	want := "cannot reach " + url + ": connection refused — is the server running?"
	if err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

func TestRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newTestClient(t, srv.URL, client.WithTimeout(50*time.Millisecond), client.WithRetries(3, time.Millisecond))
	_, err := c.ServerInfo(context.Background())
	var timeout *client.TimeoutError
	if !errors.As(err, &timeout) || timeout.Op != "GET /api/server-info" {
		t.Fatalf("error %v", err)
	}
}

func TestCloseCancelsRequestsAndLaterCalls(t *testing.T) {
	arrived := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL)
	done := make(chan error, 1)
	go func() {
		_, err := c.ServerInfo(context.Background())
		done <- err
	}()
	<-arrived
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, client.ErrClientClosed) {
			t.Fatalf("in-flight request: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not cancel the request")
	}
	if _, err := c.CheckKey(context.Background()); !errors.Is(err, client.ErrClientClosed) {
		t.Fatalf("call after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// Deployed servers reject the contract's test-email form with 400 and take
// the nested one (deployed-servers.md); the embedded server cannot behave
// like that, so an httptest server emulates it.
func TestSendTestEmailFallsBackToNestedForm(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("body: %v", err)
		}
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		if _, topLevel := body["spf"]; topLevel {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"message":["property spf should not exist"],"error":"Bad Request","statusCode":400}`))
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"emailId":"e-1"}`))
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, client.WithRetries(3, time.Millisecond))
	rdns := false
	id, err := c.SendTestEmail(context.Background(), model.TestEmailRequest{
		To: "x@sandbox.test", Subject: "s", SPF: "fail", DKIM: "pass", DMARC: "none", ReverseDNS: &rdns,
	})
	if err != nil || id != "e-1" {
		t.Fatalf("id %q, %v", id, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("%d requests", len(bodies))
	}
	auth, _ := bodies[1]["auth"].(map[string]any)
	if auth["spf"] != "fail" || auth["dkim"] != "pass" || auth["dmarc"] != "none" || auth["reverseDns"] != "fail" ||
		bodies[1]["to"] != "x@sandbox.test" || bodies[1]["subject"] != "s" || len(bodies[1]) != 3 {
		t.Fatalf("nested body %v", bodies[1])
	}
}
