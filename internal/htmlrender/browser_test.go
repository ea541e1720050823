package htmlrender

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"path/filepath"
	"sandview/client/linkcheck"
	"testing"
)

// TestSlowMailCutAndProfileRemoved: a mail still loading after Timeout
// (an allowed remote image whose server never answers) is pictured as it
// is, with a note; the browser runs in a 0700 profile directory of its
// own, removed by Close, and a render after Close fails.
func TestSlowMailCutAndProfileRemoved(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	fetcher := linkcheck.New(linkcheck.Options{AllowPrivate: true, Timeout: time.Minute})
	defer fetcher.Close()
	cfg := testConfig()
	cfg.Timeout, cfg.Fetcher = 2*time.Second, fetcher
	r := New(cfg)
	slow := fmt.Sprintf(`<p>slow <img src="http://%s/never.png" width="60" height="60"></p>`, ln.Addr())
	res := render(t, r, Input{HTML: slow}, Options{Width: 375, AllowRemote: true})
	if !strings.Contains(res.Cut, "did not finish loading in 2s") || len(res.PNG) == 0 {
		t.Errorf("cut %q, %d bytes: want the picture with a note", res.Cut, len(res.PNG))
	}
	r.mu.Lock()
	profile := r.b.profile
	r.mu.Unlock()
	fi, err := os.Stat(profile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("profile %s is %v, want 0700", profile, fi.Mode().Perm())
	}
	if !filepath.IsAbs(profile) {
		t.Errorf("profile %q", profile)
	}
	if r.pid() == 0 {
		t.Error("no browser process while rendering")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Errorf("profile %s still there after Close: %v", profile, err)
	}
	if _, err := r.Render(t.Context(), Input{HTML: "<p>hi"}, Options{}); err == nil {
		t.Error("a render after Close succeeded")
	}
}

// TestWarm: Warm starts the browser without a render, and the first
// render then uses it (the same process).
func TestWarm(t *testing.T) {
	r := New(testConfig())
	defer r.Close()
	if r.pid() != 0 {
		t.Fatal("a browser runs before Warm")
	}
	if err := r.Warm(); err != nil {
		t.Fatal(err)
	}
	pid := r.pid()
	if pid == 0 {
		t.Fatal("no browser after Warm")
	}
	if res := render(t, r, Input{HTML: "<p>hi"}, Options{Width: 375}); len(res.PNG) == 0 || r.pid() != pid {
		t.Fatalf("render after Warm: %d bytes, browser %d (was %d)", len(res.PNG), r.pid(), pid)
	}
	if err := New(Config{}).Warm(); !errors.Is(err, ErrNoBrowser) {
		t.Fatalf("Warm without a browser: %v, want ErrNoBrowser", err)
	}
}
