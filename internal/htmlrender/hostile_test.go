package htmlrender

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"sandview/client/linkcheck"
)

// listener is a loopback HTTP server that counts the requests it gets
// and answers each with a red 60x60 PNG.
type listener struct {
	base  string
	count atomic.Int64
	mu    sync.Mutex
	paths []string
}

func startListener(t *testing.T) *listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 60, 60))
	for i := range img.Pix {
		if i%4 == 0 || i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	var red bytes.Buffer
	if err := png.Encode(&red, img); err != nil {
		t.Fatal(err)
	}
	l := &listener{base: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.count.Add(1)
		l.mu.Lock()
		l.paths = append(l.paths, r.URL.Path)
		l.mu.Unlock()
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(red.Bytes())
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l
}

// hostile is a mail that tries every way of reaching base: a script, an
// event handler, a refresh, a base address, remote fonts, style sheets,
// images (src, srcset, CSS, background attribute, poster), frames,
// objects and resource hints. Its script would paint the page red.
func hostile(base string) string {
	return fmt.Sprintf(`<html><head>
<meta http-equiv="refresh" content="0; url=%[1]s/refresh">
<base href="%[1]s/base/">
<link rel="stylesheet" href="%[1]s/style.css">
<link rel="preload" href="%[1]s/preload" as="image">
<link rel="dns-prefetch" href="%[1]s">
<style>@import url(%[1]s/import.css);
@font-face { font-family: Remote; src: url(%[1]s/font.woff) format("woff"); }
body { font-family: Remote, sans-serif; background-image: url(%[1]s/bg.png); }</style>
<script>document.documentElement.style.background = "red"; fetch("%[1]s/fetch");</script>
</head><body background="%[1]s/body-bg.png">
<p>Hello <img src="%[1]s/img.png" srcset="%[1]s/srcset.png 2x" width="60" height="60" onerror="document.body.style.background='red'"></p>
<iframe src="%[1]s/frame"></iframe><object data="%[1]s/object"></object>
<video poster="%[1]s/poster.png"></video><audio src="%[1]s/audio.mp3" autoplay></audio>
<img src="relative.png"><a href="%[1]s/link" ping="%[1]s/ping">link</a>
</body></html>`, base)
}

// TestHostileHTMLReachesNothing renders a mail built to reach a loopback
// server in every way HTML allows: the server gets no request, and the
// script does not run.
func TestHostileHTMLReachesNothing(t *testing.T) {
	l := startListener(t)
	res := render(t, shared, Input{HTML: hostile(l.base)}, Options{Width: 600})
	if n := l.count.Load(); n != 0 {
		t.Errorf("the page reached the loopback server %d times: %v", n, l.paths)
	}
	img := decode(t, res.PNG)
	if n := countColor(img, 255, 0, 0); n != 0 {
		t.Errorf("%d red pixels: the script ran or the remote image loaded", n)
	}
}

// TestAllowRemote: remote content the user allows is fetched by sandview
// (through the link checker's guard, here allowing loopback) and drawn.
func TestAllowRemote(t *testing.T) {
	l := startListener(t)
	fetcher := linkcheck.New(linkcheck.Options{AllowPrivate: true})
	defer fetcher.Close()
	cfg := testConfig()
	cfg.Fetcher = fetcher
	r := New(cfg)
	defer r.Close()
	in := Input{HTML: fmt.Sprintf(`<p>Hi <img src="%s/img.png" width="60" height="60"></p>`, l.base)}
	res := render(t, r, in, Options{Width: 375, AllowRemote: true})
	if n := countColor(decode(t, res.PNG), 255, 0, 0); n < 60*60/2 {
		t.Errorf("%d red pixels: the allowed remote image is not drawn", n)
	}
	l.mu.Lock()
	paths := strings.Join(l.paths, " ")
	l.mu.Unlock()
	if !strings.Contains(paths, "/img.png") {
		t.Errorf("the server got %q, want /img.png", paths)
	}
	// The same mail without the permission: nothing asked, nothing drawn.
	before := l.count.Load()
	res = render(t, r, in, Options{Width: 375})
	if n := l.count.Load() - before; n != 0 {
		t.Errorf("without --allow-remote the server got %d requests", n)
	}
	if n := countColor(decode(t, res.PNG), 255, 0, 0); n != 0 {
		t.Errorf("without --allow-remote %d red pixels", n)
	}
}

// TestHugeAndDeepHTML: 20 MB of HTML and 10,000 nested elements render,
// or are cut with a note; the picture is never taller than MaxHeight.
func TestHugeAndDeepHTML(t *testing.T) {
	var huge strings.Builder
	for huge.Len() < 20<<20 {
		fmt.Fprintf(&huge, "<p>line %d of a very long mail</p>\n", huge.Len())
	}
	deep := strings.Repeat("<div>", 10000) + "bottom" + strings.Repeat("</div>", 10000)
	for name, html := range map[string]string{"20 MB": huge.String(), "10k deep": deep} {
		t.Run(name, func(t *testing.T) {
			res := render(t, shared, Input{HTML: html}, Options{Width: 600})
			if res.Height > MaxHeight || res.Height < 1 {
				t.Errorf("height %d px", res.Height)
			}
			if name == "20 MB" && res.Cut == "" {
				t.Error("20 MB of paragraphs pictured whole: want a cut with a note")
			}
			t.Logf("%s: %dx%d, cut %q", name, res.Width, res.Height, res.Cut)
		})
	}
}

// TestRendersDoNotMix renders different mails at once on the shared
// browser (as the sessions of a box do): each picture is its own mail's.
func TestRendersDoNotMix(t *testing.T) {
	colors := []color.RGBA{{200, 30, 30, 255}, {30, 160, 30, 255}, {30, 30, 200, 255}, {200, 200, 30, 255}}
	var wg sync.WaitGroup
	for _, c := range colors {
		wg.Go(func() {
			html := fmt.Sprintf(`<body style="margin:0;background:rgb(%d,%d,%d)"><div style="height:300px"></div></body>`, c.R, c.G, c.B)
			res, err := shared.Render(context.Background(), Input{HTML: html}, Options{Width: 375})
			if err != nil {
				t.Error(err)
				return
			}
			img := decode(t, res.PNG)
			b := img.Bounds()
			if n := countColor(img, c.R, c.G, c.B); n != b.Dx()*b.Dy() {
				t.Errorf("mail %v: %d of %d pixels its colour", c, n, b.Dx()*b.Dy())
			}
		})
	}
	wg.Wait()
}

// TestNoBrowser: without a Chromium, Render says how to get one.
func TestNoBrowser(t *testing.T) {
	for _, path := range []string{"", "/nonexistent/chromium"} {
		_, err := New(Config{BrowserPath: path}).Render(context.Background(), Input{HTML: "<p>hi"}, Options{})
		if !errors.Is(err, ErrNoBrowser) {
			t.Errorf("browser %q: %v, want ErrNoBrowser", path, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--browser PATH or SANDVIEW_BROWSER") {
			t.Errorf("browser %q: %q does not say how to get one", path, err)
		}
	}
}
