package htmlrender

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/chromedp/chromedp"
)

// browserNames are the names a Chromium executable goes by, in the order
// FindBrowser tries them.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless-shell", "headless_shell"}

// FindBrowser looks for a Chromium with lookPath (exec.LookPath, given by
// internal/cli, the only reader of the environment) and returns its path,
// or "" when there is none.
func FindBrowser(lookPath func(string) (string, error)) string {
	for _, name := range browserNames {
		if p, err := lookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is the one Chromium process a Renderer shares between renders.
type browser struct {
	ctx     context.Context // a chromedp context holding the browser
	cancel  func()
	profile string    // its 0700 user data directory
	spare   chan *tab // the tab for the next render; always one there or on its way
}

// Renderer renders mail with one shared browser, started on first use.
type Renderer struct {
	cfg Config
	sem chan struct{}

	// work is the renders' closing of their tabs and opening of spares,
	// done after they returned; Close waits for it.
	work sync.WaitGroup

	mu     sync.Mutex
	b      *browser
	closed bool
}

// New returns a renderer; no browser starts until the first Render.
func New(cfg Config) *Renderer {
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Renderer{cfg: cfg, sem: make(chan struct{}, cfg.MaxConcurrent)}
}

// allocatorOptions are the browser's flags: headless, and no network of
// its own besides the interception each render sets up (a dead loopback
// proxy for every host, loopback included, and a resolver that finds no
// name), no background traffic (updates, safe browsing, metrics).
func (r *Renderer) allocatorOptions(profile string) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(r.cfg.BrowserPath),
		chromedp.UserDataDir(profile),
		chromedp.ProxyServer("http://127.0.0.1:1"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,MediaRouter,OptimizationHints,AutofillServerCommunication,CertificateTransparencyComponentUpdater,DialMediaRouteProvider,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup"),
		chromedp.Flag("disable-field-trial-config", true),
		chromedp.Flag("no-startup-window", true),
		chromedp.Flag("blink-settings", "scriptEnabled=false"),
		chromedp.Flag("renderer-process-limit", strconv.Itoa(r.cfg.MaxConcurrent+1)),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
	)
	if r.cfg.NoSandbox {
		opts = append(opts, chromedp.NoSandbox)
	}
	return opts
}

// browser returns the running browser, starting one when there is none
// or the last one died.
func (r *Renderer) browser() (*browser, error) {
	if r.cfg.BrowserPath == "" {
		return nil, ErrNoBrowser
	}
	if _, err := os.Stat(r.cfg.BrowserPath); err != nil {
		if _, err := exec.LookPath(r.cfg.BrowserPath); err != nil {
			return nil, fmt.Errorf("%w (%s: %v)", ErrNoBrowser, r.cfg.BrowserPath, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("render: the renderer is closed")
	}
	if r.b != nil && r.b.ctx.Err() == nil {
		return r.b, nil
	}
	if r.b != nil { // it died: clean up after it
		_ = r.b.stop()
		r.b = nil
	}
	profile, err := os.MkdirTemp("", "sandview-chromium-") // 0700
	if err != nil {
		return nil, fmt.Errorf("render: make the browser's profile directory: %w", err)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), r.allocatorOptions(profile)...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	b := &browser{ctx: ctx, profile: profile, spare: make(chan *tab, 1), cancel: func() { cancelCtx(); cancelAlloc() }}
	// The browser starts with no window (--no-startup-window): the
	// context holds the browser alone, and every render's tab opens in a
	// browser context of its own. chromedp.Run would wait for a first tab;
	// the browser is allocated as Run does it, without one.
	c := chromedp.FromContext(ctx)
	br, err := c.Allocator.Allocate(ctx)
	if err != nil {
		// The allocator's cancel ends a process that started; the
		// context's cancel waits for a browser that chromedp never marks
		// stopped when it failed to start, so it is not waited for.
		cancelAlloc()
		go cancelCtx()
		_ = os.RemoveAll(profile)
		return nil, fmt.Errorf("render: start the browser %s: %w", r.cfg.BrowserPath, err)
	}
	c.Browser = br
	r.b = b
	r.work.Go(b.refill)
	return b, nil
}

// Warm starts the browser, when none runs, and has the first render's tab
// opened, without waiting for the tab: a caller that expects a render
// soon (the reader, on the first mail with an HTML part) calls it so that
// the render does not wait for the browser to start.
func (r *Renderer) Warm() error {
	_, err := r.browser()
	return err
}

// stop ends the browser process and removes its profile.
func (b *browser) stop() error {
	_ = chromedp.Cancel(b.ctx) // closes the browser gracefully, then kills it
	b.cancel()
	if err := os.RemoveAll(b.profile); err != nil {
		return fmt.Errorf("render: remove the browser's profile: %w", err)
	}
	return nil
}

// pid is the browser process's id (0 when none runs).
func (r *Renderer) pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.b == nil || r.b.ctx.Err() != nil {
		return 0
	}
	if c := chromedp.FromContext(r.b.ctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		return c.Browser.Process().Pid
	}
	return 0
}

// Close ends the browser, if one runs, and removes its profile; call it
// once the last Render returned. Renders after Close fail.
func (r *Renderer) Close() error {
	r.mu.Lock()
	r.closed = true
	b := r.b
	r.b = nil
	r.mu.Unlock()
	r.work.Wait()
	if b == nil {
		return nil
	}
	b.closeSpare()
	return b.stop()
}
