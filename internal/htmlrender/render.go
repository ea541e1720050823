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
	html, err := safePage(in, opt.AllowRemote)
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
	t, err := b.takeTab(ctx, &r.work)
	if err != nil {
		<-r.sem
		return Result{}, fmt.Errorf("render: %w", err)
	}
	// The tab is closed after the render returned; the turn ends once it
	// is, so that at most MaxConcurrent rendering tabs (and a spare) exist
	// at a time.
	defer r.work.Go(func() {
		t.close()
		<-r.sem
	})
	stop := context.AfterFunc(ctx, t.close)
	defer stop()
	res, err := chromedp.Run(t.ctx, r.render(html, opt))
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("render: %w", ctx.Err())
		}
		return Result{}, fmt.Errorf("render: %w", err)
	}
	return res, nil
}

// render is the action that loads html into the tab and pictures it.
func (r *Renderer) render(html string, opt Options) chromedp.Action[Result] {
	return func(ctx context.Context, t *chromedp.Target) (Result, error) {
		err := calls(ctx,
			func(ctx context.Context) error {
				_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
				return err
			},
			func(ctx context.Context) error {
				scheme := "light"
				if opt.Dark {
					scheme = "dark"
				}
				_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Media:    "screen",
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
				})
				return err
			},
			func(ctx context.Context) error {
				_, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
					Width: int64(opt.Width), Height: viewportHeight, DeviceScaleFactor: 1,
				})
				return err
			},
			func(ctx context.Context) error {
				_, err := cdp.Call(ctx, t, page.Enable, page.EnableParams{})
				return err
			},
		)
		if err != nil {
			return Result{}, fmt.Errorf("set up the page: %w", err)
		}
		var blocked atomic.Int64
		serveCtx, stopServing := context.WithCancel(ctx)
		defer stopServing()
		requests := cdp.Events(serveCtx, t, fetch.RequestPaused)
		if _, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
			return Result{}, fmt.Errorf("intercept the page's requests: %w", err)
		}
		go func() {
			for ev, err := range requests {
				if err != nil {
					return
				}
				go r.answer(serveCtx, t, ev, html, opt.AllowRemote, &blocked)
			}
		}()

		var cut []string
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
		shotCtx, cancel := context.WithTimeout(ctx, 2*r.cfg.Timeout)
		defer cancel()
		res, err := r.picture(shotCtx, t, opt, &cut)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				return Result{}, fmt.Errorf("the browser did not picture the mail in %s", 2*r.cfg.Timeout)
			}
			return Result{}, err
		}
		res.Blocked = int(blocked.Load())
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

// picture takes the screenshot: the page's full height, cut at MaxHeight
// (the option's, or the package's), a note in cut when it is.
func (r *Renderer) picture(ctx context.Context, t *chromedp.Target, opt Options, cut *[]string) (Result, error) {
	// The page's height is the viewport's at least: a 1 px viewport
	// measures the mail's own (a short mail gets a short picture).
	if _, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(opt.Width), Height: 1, DeviceScaleFactor: 1,
	}); err != nil {
		return Result{}, fmt.Errorf("measure the page: %w", err)
	}
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
		Clip:                  &page.Viewport{Width: float64(opt.Width), Height: float64(height), Scale: 1},
		CaptureBeyondViewport: new(true),
		FromSurface:           new(true),
	})
	if err != nil {
		return Result{}, fmt.Errorf("picture the page: %w", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(shot.Data))
	if err != nil {
		return Result{}, fmt.Errorf("read the browser's picture: %w", err)
	}
	return Result{PNG: shot.Data, Width: cfg.Width, Height: cfg.Height}, nil
}

// answer answers one request of the page: the page itself from memory;
// a remote resource, when allowed, fetched by the Fetcher; anything else
// refused (and counted in blocked).
func (r *Renderer) answer(ctx context.Context, t *chromedp.Target, ev fetch.EventRequestPaused, html string, allowRemote bool, blocked *atomic.Int64) {
	u := ev.Request.URL
	if u == pageURL {
		_, _ = cdp.Call(ctx, t, fetch.FulfillRequest, fetch.FulfillRequestParams{
			RequestID: ev.RequestID, ResponseCode: 200, Body: []byte(html),
			ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html; charset=utf-8"}},
		})
		return
	}
	remote := strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
	if allowRemote && remote && r.cfg.Fetcher != nil {
		fctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
		body, ctype, err := r.cfg.Fetcher.Fetch(fctx, u, maxRemoteBytes)
		cancel()
		if err == nil {
			_, _ = cdp.Call(ctx, t, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID: ev.RequestID, ResponseCode: 200, Body: body,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: ctype}, {Name: "Access-Control-Allow-Origin", Value: "*"}},
			})
			return
		}
	}
	blocked.Add(1)
	_, _ = cdp.Call(ctx, t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
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
