package htmlrender

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// tab is a page in a browser context of its own: its cookies, cache and
// storage are in memory and shared with no other render, and are disposed
// of with it.
type tab struct {
	ctx   context.Context
	close context.CancelFunc // closes the page and disposes of its context
	err   error              // why it could not be opened
}

// openTab opens a tab in a fresh browser context and readies it for a
// render: scripts off, every request intercepted, and the DevTools
// domains chromedp turns on that a render does not use (their events cost
// the renderer work on every change of the page) turned off.
func (b *browser) openTab() *tab {
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		return &tab{err: fmt.Errorf("open a tab: %w", err), close: func() {}}
	}
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return calls(ctx,
			send(t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}),
			send(t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}),
			send(t, page.Enable, page.EnableParams{}),
			send(t, css.Disable, cdp.Empty{}),
			send(t, dom.Disable, cdp.Empty{}),
			send(t, network.Disable, cdp.Empty{}),
			send(t, log.Disable, cdp.Empty{}),
		)
	}))
	if err != nil {
		cancel()
		return &tab{err: fmt.Errorf("ready a tab: %w", err), close: func() {}}
	}
	return &tab{ctx: ctx, close: cancel}
}

// refill opens the next spare tab. Opening a tab (a renderer process)
// costs more than most renders, so it is done ahead, one at a time, while
// the caller looks at the last picture.
func (b *browser) refill() { b.spare <- b.openTab() }

// takeTab takes the spare tab, waiting for it if it is still being
// opened. The caller has the next one opened (refill), once for each tab
// taken: at once when other renders wait for it, else after its render,
// so that the opening does not slow the render down.
func (b *browser) takeTab(ctx context.Context) (*tab, error) {
	select {
	case t := <-b.spare:
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-b.ctx.Done():
		return nil, fmt.Errorf("the browser stopped: %w", b.ctx.Err())
	}
}

// closeSpare closes the spare tab (opened: no render runs).
func (b *browser) closeSpare() {
	if t := <-b.spare; t.err == nil {
		t.close()
	}
}

// send is a step of calls: the command c with params p, its result
// dropped.
func send[P, R any](t cdp.Session, c cdp.Command[P, R], p P) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := cdp.Call(ctx, t, c, p)
		return err
	}
}
