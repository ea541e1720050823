package tui

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/client/keystore"
	"sandview/server/servertest"
	"sandview/tui/tuitest"
)

// runUntil runs the real program headless with cfg until its view holds
// every one of want, and returns the last view; it fails when the program
// ends or the time is up first.
func runUntil(t *testing.T, cfg Config, want ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var last atomic.Value
	last.Store("")
	seen := make(chan struct{}, 1)
	watch := func(tm tea.Model, msg tea.Msg) tea.Msg {
		view := tuitest.Plain(tm.(App).View().Content)
		last.Store(view)
		for _, w := range want {
			if !strings.Contains(view, w) {
				return msg
			}
		}
		select {
		case seen <- struct{}{}:
		default:
		}
		return msg
	}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(160, 40), tea.WithFilter(watch))
	}()
	select {
	case <-seen:
	case err := <-done:
		t.Fatalf("program ended early: %v\n%s", err, last.Load())
	case <-ctx.Done():
		t.Fatalf("the view never showed %q:\n%s", want, last.Load())
	}
	stopProgram(t, cancel, done)
	return last.Load().(string)
}

// deleteOnServer deletes an inbox behind the program's back.
func deleteOnServer(t *testing.T, baseURL, apiKey, address string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, baseURL+"/api/inboxes/"+address, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestProgramFlagsInboxesLostInARestart plays a deployment that restarted
// and lost one of two inboxes: its event stream answers 400 "No matching
// inbox hashes" (a real server accepts unknown hashes, so an httptest
// proxy says it) and the lost inbox lists 404. The program flags that
// inbox as gone, keeps the other one, and does not spin on reconnects.
func TestProgramFlagsInboxesLostInARestart(t *testing.T) {
	srv := servertest.Start(t)
	target, _ := url.Parse(srv.URL())
	var streams atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/events" {
			streams.Add(1)
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"statusCode":400,"message":"No matching inbox hashes","error":"Bad Request"}`)
			return
		}
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	defer proxy.Close()
	c, err := client.New(proxy.URL, srv.APIKey(), ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lost, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deleteOnServer(t, srv.URL(), srv.APIKey(), lost.Address())
	dark := true
	start := time.Now()
	view := runUntil(t, Config{Client: c, Settings: &Settings{ServerLabel: "test", DarkTheme: &dark}}, "gone from the server", kept.Address())
	elapsed := time.Since(start)
	if strings.Contains(view, "reconnecting") {
		t.Fatalf("a refused stream shows as reconnecting:\n%s", view)
	}
	// Two opens (both inboxes, then the kept one), then polling probes
	// the stream 1 s after the fallback, then 2 s later, 4 s later, ...:
	// however slow the machine, a client that does not spin asks no more
	// than that (plus one probe in flight).
	probes := 1
	for next := time.Second; next <= elapsed; next = 2*next + time.Second {
		probes++
	}
	if n := streams.Load(); n > int64(2+probes) {
		t.Fatalf("the refused stream was asked %d times in %v", n, elapsed)
	}
}

// TestProgramShowsInboxesTheCLISaves runs the program over a keystore and
// saves a new inbox to it from another client, as `sandview inbox create`
// does: the program shows it without a restart.
func TestProgramShowsInboxesTheCLISaves(t *testing.T) {
	srv := servertest.Start(t)
	dir := filepath.Join(t.TempDir(), "inboxes", "server")
	ks, err := keystore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(srv.URL(), srv.APIKey())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cli, err := client.New(srv.URL(), srv.APIKey())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	created, err := cli.CreateInbox(ctx, client.CreateInboxOptions{EmailAddress: "qa-run-17@sandbox.test"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := created.Export()
	if err != nil {
		t.Fatal(err)
	}
	dark := true
	cfg := Config{Client: c, Keystore: ks, Settings: &Settings{ServerLabel: "test", DarkTheme: &dark}}
	saved := make(chan error, 1)
	cfg.Startup = func(context.Context) error {
		other, err := keystore.Open(dir)
		if err == nil {
			err = other.Save(data)
		}
		saved <- err
		return err
	}
	runUntil(t, cfg, "qa-run-17@sandbox.test")
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
}
