package linkcheck

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"sandview/client/netguard"
)

// TestFetch: Fetch GETs a resource, redirects followed, with its content
// type; a private destination is refused unless allowed, and a body over
// the limit or an error status is an error.
func TestFetch(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/img.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("not really a png"))
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/img.png", http.StatusFound) })
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	ctx := context.Background()

	private := New(Options{AllowPrivate: true})
	defer private.Close()
	body, ctype, err := private.Fetch(ctx, base+"/moved", 1<<20)
	if err != nil || string(body) != "not really a png" || ctype != "image/png" {
		t.Errorf("fetch through a redirect: %q %q %v", body, ctype, err)
	}
	if _, _, err := private.Fetch(ctx, base+"/img.png", 4); err == nil || !strings.Contains(err.Error(), "larger than 4 bytes") {
		t.Errorf("over the limit: %v", err)
	}
	if _, _, err := private.Fetch(ctx, base+"/missing", 1<<20); err == nil || !strings.Contains(err.Error(), "status 404") {
		t.Errorf("a 404: %v", err)
	}
	if _, _, err := private.Fetch(ctx, "file:///etc/passwd", 1<<20); err == nil {
		t.Error("a file: URL was fetched")
	}

	public := New(Options{})
	defer public.Close()
	if _, _, err := public.Fetch(ctx, base+"/img.png", 1<<20); !errors.Is(err, netguard.ErrForbidden) {
		t.Errorf("a loopback destination by default: %v, want ErrForbidden", err)
	}
}
