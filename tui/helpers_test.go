package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/client/webhookrecv"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
	"sandview/tui/webhooks"
)

// harness is the program over the fixture service, driven by messages.
type harness struct {
	tuitest.Driver
	app *App
	svc *tuitest.Service
}

// newHarness returns the program over a fake service holding the
// fixtures, sized width x height, with timers off, a fixed clock, and the
// demo and plain inboxes loaded as the live feed would load them.
func newHarness(t testing.TB, width, height int, dark bool) *harness {
	t.Helper()
	return newHarnessOver(t, tuitest.NewFixtureService(), width, height, dark)
}

// newHarnessOver is newHarness over svc.
func newHarnessOver(t testing.TB, svc *tuitest.Service, width, height int, dark bool) *harness {
	t.Helper()
	return newHarnessSet(t, svc, width, height, dark, func(*Config) {})
}

// newHarnessSet is newHarnessOver with the config changes set makes.
func newHarnessSet(t testing.TB, svc *tuitest.Service, width, height int, dark bool, set func(*Config)) *harness {
	t.Helper()
	cfg := Config{
		svc: svc, tick: tuitest.NoTick,
		Settings: &Settings{
			ServerLabel: "local 127.0.0.1:8025", SMTPHint: "send mail to demo@sandbox.test via SMTP 127.0.0.1:1025",
			DarkTheme: &dark, Now: func() time.Time { return tuitest.Now() },
			Open: func(_ context.Context, target string) error { svc.Record("open %s", target); return nil },
		},
	}
	set(&cfg)
	app := newApp(context.Background(), cfg)
	h := &harness{app: &app, svc: svc}
	h.Driver = tuitest.Driver{T: t, Update: func(msg tea.Msg) tea.Cmd {
		next, cmd := h.app.Update(msg)
		*h.app = next.(App)
		return cmd
	}}
	h.Send(tea.WindowSizeMsg{Width: width, Height: height})
	h.Send(feed.InboxReadyMsg{Address: tuitest.DemoAddr})
	h.Send(feed.InboxReadyMsg{Address: tuitest.PlainAddr})
	return h
}

// view is the program's view as the terminal gets it.
func (h *harness) view() string { return h.app.View().Content }

// plain is the view without styling.
func (h *harness) plain() string { return tuitest.Plain(h.view()) }

// rendered is the view as golden files hold it.
func (h *harness) rendered() string { return tuitest.Rendered(h.T, h.view()) }

// expireStatus lets the status message's time run out, the clock standing
// still for the rest of the view.
func (h *harness) expireStatus() {
	ctx := h.app.ctx
	fixed := ctx.Clock
	ctx.Clock = func() time.Time { return fixed().Add(time.Hour) }
	h.Send(tickMsg(ctx.Clock()))
	ctx.Clock = fixed
	h.Send(tickMsg(fixed()))
}

// newWebhookHarness is newHarness with the fixture webhooks on the fake
// service and the webhooks screen open.
func newWebhookHarness(t testing.TB, width, height int, dark bool) *harness {
	t.Helper()
	h := newHarness(t, width, height, dark)
	for _, w := range tuitest.Webhooks() {
		h.svc.AddWebhook(w)
	}
	h.svc.SetMetrics(tuitest.Metrics())
	h.Press("w")
	return h
}

// receiverURL is where the fake receiver listens.
const receiverURL = "http://127.0.0.1:40123/hook"

// fakeReceiver is a built-in receiver that listens nowhere, at a fixed
// address; deliveries are sent to the screen by the test.
type fakeReceiver struct{}

func (fakeReceiver) URL() string                             { return receiverURL }
func (fakeReceiver) Deliveries() <-chan webhookrecv.Delivery { return nil }
func (fakeReceiver) Dropped() uint64                         { return 0 }
func (fakeReceiver) SetSecrets(...string)                    {}
func (fakeReceiver) Close() error                            { return nil }

// withDeliveries points the team webhook at a receiver on a fixed address
// and hands the screen the fixture deliveries.
func withDeliveries(h *harness) {
	team := tuitest.Webhooks()[0]
	h.Send(webhooks.ReceiverMsg{Receiver: fakeReceiver{}, Started: true, Hook: team})
	for _, d := range tuitest.Deliveries() {
		h.Send(webhooks.DeliveryMsg{Delivery: d})
	}
}

// receiverRefused is the server's answer to a webhook pointing at the
// receiver when it only accepts HTTPS.
func receiverRefused() error {
	return fmt.Errorf("create webhook: %w", &client.InvalidWebhookError{Problems: []client.Problem{{Field: "url", Text: "url must use https"}}})
}

// webhooksReceiverRefused is the receiver listening on a fixed address
// but the server refusing the webhook pointing at it.
func webhooksReceiverRefused() webhooks.ReceiverMsg {
	return webhooks.ReceiverMsg{Receiver: fakeReceiver{}, Started: true, Err: receiverRefused()}
}
