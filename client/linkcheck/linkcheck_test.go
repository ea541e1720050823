package linkcheck

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandview/server/dnsresolve/dnstest"
)

// site is a loopback HTTP server answering 200, 301→200, 404, a HEAD
// refusal, and never (until the client gives up), counting the requests
// in flight.
type site struct {
	*httptest.Server
	inFlight, most atomic.Int32
	hanging        chan struct{} // a request reached /hang
}

func newSite(t *testing.T) *site {
	s := &site{hanging: make(chan struct{}, 10000)}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusMovedPermanently) })
	mux.HandleFunc("/twice", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/moved", http.StatusFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/gone", http.NotFound)
	mux.HandleFunc("/getonly", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	})
	mux.HandleFunc("/hang", func(_ http.ResponseWriter, r *http.Request) {
		s.hanging <- struct{}{}
		<-r.Context().Done()
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestCheckStatuses(t *testing.T) {
	s := newSite(t)
	c := New(Options{AllowPrivate: true, Timeout: 500 * time.Millisecond})
	defer c.Close()
	links := []string{s.URL + "/ok", s.URL + "/moved", s.URL + "/twice", s.URL + "/gone", s.URL + "/getonly",
		s.URL + "/hang", s.URL + "/loop", "mailto:a@b.test", s.URL + "/ok"}
	got := c.Check(context.Background(), links, nil)
	want := []struct {
		outcome string
		status  int
		method  string
		hops    string
	}{
		{OK, 200, "HEAD", ""},
		{OK, 200, "HEAD", "/moved 301"},
		{OK, 200, "HEAD", "/twice 302, /moved 301"},
		{Broken, 404, "HEAD", ""},
		{OK, 200, "GET", ""},
		{Unreachable, 0, "HEAD", ""},
		{Broken, 302, "HEAD", strings.TrimSuffix(strings.Repeat("/loop 302, ", maxRedirects+1), ", ")},
		{NotChecked, 0, "", ""},
		{OK, 200, "HEAD", ""},
	}
	for i, w := range want {
		r := got[i]
		var hops []string
		for _, h := range r.Redirects {
			hops = append(hops, fmt.Sprintf("%s %d", strings.TrimPrefix(h.URL, s.URL), h.Status))
		}
		if r.URL != links[i] || r.Outcome != w.outcome || r.Status != w.status || r.Method != w.method || strings.Join(hops, ", ") != w.hops {
			t.Errorf("%s: got %+v (hops %q), want %+v", links[i], r, hops, w)
		}
	}
	if got[1].FinalURL != s.URL+"/ok" || got[5].Error != "timeout after 500ms" || !strings.Contains(got[6].Error, "redirects") {
		t.Errorf("final URL %q, hang error %q, loop error %q", got[1].FinalURL, got[5].Error, got[6].Error)
	}
}

// Loopback and private targets are refused unless asked for, also when a
// public-looking first hop is not the problem; nothing reaches the server.
func TestCheckRefusesPrivate(t *testing.T) {
	s := newSite(t)
	c := New(Options{})
	defer c.Close()
	got := c.Check(context.Background(), []string{s.URL + "/ok", "http://localhost:1/x", "http://10.1.2.3/"}, nil)
	for _, r := range got {
		if r.Outcome != NotChecked || !r.Private || !strings.Contains(r.Error, "private address") {
			t.Errorf("%s: %+v", r.URL, r)
		}
	}
	if s.most.Load() != 0 {
		t.Errorf("a refused link reached the server")
	}
}

// An offline box: each link is unreachable, the check itself succeeds.
// The name is looked up on a DNS server on loopback that knows none.
func TestCheckUnreachable(t *testing.T) {
	s := newSite(t)
	addr := s.URL
	s.Close() // nothing listens there any more
	dns := dnstest.Start(t, dnstest.Options{})
	c := New(Options{AllowPrivate: true, Resolver: dns.Resolver()})
	defer c.Close()
	got := c.Check(context.Background(), []string{addr + "/a", "http://no-such-host.invalid/"}, nil)
	for _, r := range got {
		if r.Outcome != Unreachable || !strings.HasPrefix(r.Error, "unreachable: ") {
			t.Errorf("%s: %+v", r.URL, r)
		}
	}
	if _, asked := dns.Queries("", 0); asked == 0 {
		t.Error("no-such-host.invalid was not looked up on the test's DNS server")
	}
}

// 2,000 links: all checked, never more than Workers at a time.
func TestCheckManyLinks(t *testing.T) {
	s := newSite(t)
	c := New(Options{AllowPrivate: true, Timeout: 2 * time.Second})
	defer c.Close()
	links := make([]string, 2000)
	for i := range links {
		links[i] = fmt.Sprintf("%s/ok?n=%d", s.URL, i)
	}
	var seen atomic.Int32
	got := c.Check(context.Background(), links, func(int, Result) { seen.Add(1) })
	for _, r := range got {
		if r.Outcome != OK {
			t.Fatalf("%s: %+v", r.URL, r)
		}
	}
	if seen.Load() != 2000 || s.most.Load() > DefaultWorkers {
		t.Errorf("reported %d results; %d requests at once (want at most %d)", seen.Load(), s.most.Load(), DefaultWorkers)
	}
}

// Cancelling ends the check at once: the links in flight and those not
// started are Cancelled.
func TestCheckCancel(t *testing.T) {
	s := newSite(t)
	c := New(Options{AllowPrivate: true, Timeout: time.Hour})
	defer c.Close()
	links := make([]string, 2000)
	for i := range links {
		links[i] = fmt.Sprintf("%s/hang?n=%d", s.URL, i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	go func() {
		for range DefaultWorkers {
			<-s.hanging
		}
		once.Do(cancel)
	}()
	got := c.Check(ctx, links, nil)
	for _, r := range got {
		if r.Outcome != Cancelled {
			t.Fatalf("%s: %+v", r.URL, r)
		}
	}
}
