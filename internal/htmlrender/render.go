package htmlrender

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"iter"
	"math"
	"strings"
	"sync/atomic"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// pageURL is the address the page is served at, from memory (.invalid:
// it names no host anywhere).
const pageURL = "https://mail.sandview.invalid/"

// viewportHeight is the height of the window the page is laid out in
// before the whole page is pictured.
const viewportHeight = 800

// Render draws in's HTML part as opt says. It waits for a turn when
// MaxConcurrent renders run already; ctx ends the wait and the render.
func (r *Renderer) Render(ctx context.Context, in Input, opt Options) (Result, error) {
	if opt.Width == 0 {
		opt.Width = DefaultWidth
	}
	if opt.Width < 100 || opt.Width > 4096 {
		return Result{}, fmt.Errorf("render: width %d px is not between 100 and 4096", opt.Width)
	}
	if opt.MaxHeight < 0 {
		return Result{}, fmt.Errorf("render: height %d px is negative", opt.MaxHeight)
	}
	if r.cfg.BrowserPath == "" {
		return Result{}, ErrNoBrowser
	}
	html, note, err := safePage(in, opt.AllowRemote)
	if err != nil {
		return Result{}, err
	}
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return Result{}, fmt.Errorf("render: waiting for the browser: %w", ctx.Err())
	}
	b, err := r.browser()
	if err != nil {
		<-r.sem
		return Result{}, err
	}
	t, err := b.takeTab(ctx)
	if err != nil {
		<-r.sem
		return Result{}, fmt.Errorf("render: %w", err)
	}
	// The next spare tab is opened once this render is done (opening one
	// takes the processor time the render needs), unless other renders
	// run or wait: then at once. The tab is closed after the render
	// returned; the turn ends once it is, so that at most MaxConcurrent
	// rendering tabs (and a spare) exist at a time.
	refilled := len(r.sem) > 1
	if refilled {
		r.work.Go(b.refill)
	}
	defer func() {
		if !refilled {
			r.work.Go(b.refill)
		}
		r.work.Go(func() {
			t.close()
			<-r.sem
		})
	}()
	if t.err != nil {
		return Result{}, fmt.Errorf("render: %w", t.err)
	}
	stop := context.AfterFunc(ctx, t.close)
	defer stop()
	res, err := chromedp.Run(t.ctx, r.render(html, note, opt))
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("render: %w", ctx.Err())
		}
		return Result{}, fmt.Errorf("render: %w", err)
	}
	return res, nil
}

// render is the action that loads html into the tab and pictures it.
func (r *Renderer) render(html, note string, opt Options) chromedp.Action[Result] {
	return func(ctx context.Context, t *chromedp.Target) (Result, error) {
		scheme := "light"
		if opt.Dark {
			scheme = "dark"
		}
		// The page is laid out once, in a viewport 1 px high: the page's
		// height measured then is the mail's own (a short mail gets a
		// short picture), and the picture is taken beyond the viewport.
		err := calls(ctx,
			send(t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Media:    "screen",
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			}),
			send(t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(opt.Width), Height: 1, DeviceScaleFactor: 1,
			}),
		)
		if err != nil {
			return Result{}, fmt.Errorf("set up the page: %w", err)
		}
		srv := &pageServer{r: r, t: t, html: html, allowRemote: opt.AllowRemote}
		serveCtx, stopServing := context.WithCancel(ctx)
		defer stopServing()
		requests := cdp.Events(serveCtx, t, fetch.RequestPaused)
		go func() {
			for ev, err := range requests {
				if err != nil {
					return
				}
				go srv.answer(serveCtx, ev)
			}
		}()

		var cut []string
		if note != "" {
			cut = append(cut, note)
		}
		loadCtx, cancelLoad := context.WithTimeout(ctx, r.cfg.Timeout)
		defer cancelLoad()
		loaded := cdp.Events(loadCtx, t, page.LoadEventFired)
		if _, err := cdp.Call(ctx, t, page.Navigate, page.NavigateParams{URL: pageURL}); err != nil {
			return Result{}, fmt.Errorf("load the page: %w", err)
		}
		if !firstOK(loaded) {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			cut = append(cut, fmt.Sprintf("the mail did not finish loading in %s: pictured as it was", r.cfg.Timeout))
			_, _ = cdp.Call(ctx, t, page.StopLoading, cdp.Empty{})
		}
		res, err := r.pictureInTime(ctx, t, opt, &cut)
		if err != nil {
			return Result{}, err
		}
		res.Blocked = int(srv.blocked.Load())
		res.Cut = strings.Join(cut, "; ")
		return res, nil
	}
}

// firstOK waits for the first event of events: false when the
// subscription ended (its context) first.
func firstOK[E any](events iter.Seq2[E, error]) bool {
	for _, err := range events {
		return err == nil
	}
	return false
}

// pictureInTime takes the picture within twice the Timeout; when the
// browser takes longer (a huge page), it takes the first screen of it
// instead, with a note.
func (r *Renderer) pictureInTime(ctx context.Context, t *chromedp.Target, opt Options, cut *[]string) (Result, error) {
	limit := 2 * r.cfg.Timeout
	shotCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := r.picture(shotCtx, t, opt, cut)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return res, err
	}
	*cut = append(*cut, fmt.Sprintf("the browser did not picture the whole mail in %s: its first %d px", limit, viewportHeight))
	firstCtx, cancelFirst := context.WithTimeout(ctx, limit)
	defer cancelFirst()
	res, err = r.firstScreen(firstCtx, t, opt)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return Result{}, fmt.Errorf("the browser did not picture the mail in %s", 2*limit)
	}
	return res, err
}

// firstScreen pictures the viewport alone: the cheapest picture there is.
func (r *Renderer) firstScreen(ctx context.Context, t *chromedp.Target, opt Options) (Result, error) {
	if _, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(opt.Width), Height: viewportHeight, DeviceScaleFactor: 1,
	}); err != nil {
		return Result{}, fmt.Errorf("picture the page: %w", err)
	}
	shot, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return Result{}, fmt.Errorf("picture the page: %w", err)
	}
	return result(shot.Data)
}

// result is a Result of a PNG the browser made.
func result(data []byte) (Result, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Result{}, fmt.Errorf("read the browser's picture: %w", err)
	}
	return Result{PNG: data, Width: cfg.Width, Height: cfg.Height}, nil
}

// picture takes the screenshot: the page's full height, cut at MaxHeight
// (the option's, or the package's), a note in cut when it is.
func (r *Renderer) picture(ctx context.Context, t *chromedp.Target, opt Options, cut *[]string) (Result, error) {
	m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return Result{}, fmt.Errorf("measure the page: %w", err)
	}
	height := viewportHeight
	if m.CSSContentSize != nil {
		height = max(1, int(math.Ceil(m.CSSContentSize.Height)))
	}
	switch {
	case opt.MaxHeight > 0 && height > opt.MaxHeight:
		*cut = append(*cut, fmt.Sprintf("cut at %d px of %d", opt.MaxHeight, height))
		height = opt.MaxHeight
	case height > MaxHeight:
		*cut = append(*cut, fmt.Sprintf("cut at %d px of %d (the longest picture taken)", MaxHeight, height))
		height = MaxHeight
	}
	shot, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		OptimizeForSpeed:      new(true),
		Clip:                  &page.Viewport{Width: float64(opt.Width), Height: float64(height), Scale: 1},
		CaptureBeyondViewport: new(true),
		FromSurface:           new(true),
	})
	if err != nil {
		return Result{}, fmt.Errorf("picture the page: %w", err)
	}
	return result(shot.Data)
}

// pageServer answers the requests of one render's page.
type pageServer struct {
	r           *Renderer
	t           *chromedp.Target
	html        string
	allowRemote bool
	served      atomic.Bool  // the page was served (once: a refresh gets nothing)
	blocked     atomic.Int64 // requests refused
}

// answer answers one request of the page: the page itself, once, from
// memory; a remote image, style sheet or font, when allowed, fetched by
// the Fetcher; anything else (another page, a frame, a script, media)
// refused and counted.
func (s *pageServer) answer(ctx context.Context, ev fetch.EventRequestPaused) {
	u := ev.Request.URL
	if u == pageURL && s.served.CompareAndSwap(false, true) {
		_, _ = cdp.Call(ctx, s.t, fetch.FulfillRequest, fetch.FulfillRequestParams{
			RequestID: ev.RequestID, ResponseCode: 200, Body: []byte(s.html),
			ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html; charset=utf-8"}},
		})
		return
	}
	if s.allowRemote && s.r.cfg.Fetcher != nil && remoteResource(u, ev.ResourceType) {
		fctx, cancel := context.WithTimeout(ctx, s.r.cfg.Timeout)
		body, ctype, err := s.r.cfg.Fetcher.Fetch(fctx, u, maxRemoteBytes)
		cancel()
		if err == nil {
			_, _ = cdp.Call(ctx, s.t, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID: ev.RequestID, ResponseCode: 200, Body: body,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: ctype}, {Name: "Access-Control-Allow-Origin", Value: "*"}},
			})
			return
		}
	}
	s.blocked.Add(1)
	_, _ = cdp.Call(ctx, s.t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
}

// remoteResource reports whether a request may be fetched when remote
// content is allowed: an http(s) image, style sheet or font.
func remoteResource(u string, typ network.ResourceType) bool {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return false
	}
	switch typ {
	case network.ResourceTypeImage, network.ResourceTypeStylesheet, network.ResourceTypeFont:
		return true
	}
	return false
}

// calls runs fns in order, stopping at the first error.
func calls(ctx context.Context, fns ...func(context.Context) error) error {
	for _, fn := range fns {
		if err := fn(ctx); err != nil {
			return err
		}
	}
	return nil
}
