package webhooks

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"

	"sandview/client/webhookrecv"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// harness is the webhooks screen over a fake service, driven as the
// program drives it; deliveries of a real receiver are handed over by the
// test (no blocking reads).
type harness struct {
	tuitest.Driver
	ctx *ui.Context
	s   *Screen
	svc *tuitest.Service
}

// newBareHarness returns the screen over a fake service holding no
// webhook, width x height, not yet opened.
func newBareHarness(t testing.TB, width, height int) *harness {
	t.Helper()
	svc := tuitest.NewFixtureService()
	ctx := tuitest.Context(true)
	s := New(ctx, context.Background(), svc, func() []string { return []string{tuitest.DemoAddr, tuitest.PlainAddr} })
	s.wait = func(<-chan webhookrecv.Delivery) tea.Cmd { return nil }
	s.SetSize(width, height)
	h := &harness{Driver: tuitest.ScreenDriver(t, ctx, s), ctx: ctx, s: s, svc: svc}
	t.Cleanup(func() {
		if r := s.state.recv; r != nil {
			_ = r.Close()
		}
	})
	return h
}

// newHarness returns the screen over the fixture webhooks, opened.
func newHarness(t testing.TB, width, height int) *harness {
	t.Helper()
	h := newBareHarness(t, width, height)
	for _, w := range tuitest.Webhooks() {
		h.svc.AddWebhook(w)
	}
	h.svc.SetMetrics(tuitest.Metrics())
	h.Run(h.s.Open())
	return h
}

// shown is what the user sees, without styling.
func (h *harness) shown() string { return tuitest.Shown(h.ctx, h.s) }

// form is the open webhook form.
func (h *harness) form() *form {
	h.T.Helper()
	f, ok := h.ctx.Dialog().(*form)
	if !ok {
		h.T.Fatalf("no webhook form open (dialog %T)", h.ctx.Dialog())
	}
	return f
}

// withDeliveries puts the fixture deliveries in the screen as if a
// receiver on a fixed address had received them.
func withDeliveries(h *harness) {
	d := h.s.state
	d.recvURL = "http://127.0.0.1:40123/hook"
	d.recvHooks["whk_team"] = []string{"whsec_teamsecret123"}
	for _, dl := range tuitest.Deliveries() {
		h.Send(DeliveryMsg{Delivery: dl})
	}
}
