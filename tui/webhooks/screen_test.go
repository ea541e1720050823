package webhooks

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

func TestWebhookScreenLoadsEveryScope(t *testing.T) {
	h := newHarness(t, 120, 37)
	for _, call := range []string{"listWebhooks  ", "listWebhooks " + tuitest.DemoAddr, "listWebhooks " + tuitest.PlainAddr, "webhookMetrics", "webhookTemplates", "getWebhook  whk_team"} {
		if !h.svc.Called(strings.TrimSuffix(call, " ")) {
			t.Errorf("opening the view did not call %q; calls: %v", call, h.svc.Calls())
		}
	}
	if h.svc.Called("listWebhooks " + tuitest.OldAddr) {
		t.Error("the webhooks of an expired inbox were listed")
	}
	if got := len(h.s.state.hooks); got != 3 {
		t.Fatalf("%d webhooks listed, want 3", got)
	}
	if w := h.s.state.hooks; w[0].ID != "whk_team" || w[2].ID != "whk_demo" {
		t.Fatalf("global webhooks must come first: %s, %s, %s", w[0].ID, w[1].ID, w[2].ID)
	}
	view := h.shown()
	for _, want := range []string{"Webhooks (3)", "3 webhooks: 2 global · 1 inbox · 2 enabled", "deliveries: 12 ok · 6 failed", "Stats        12 deliveries · 11 ok · 1 failed"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if _, handled := h.s.HandleKey(tuitest.Key("esc")); handled {
		t.Fatal("esc on the list was not left to the program (back to the mail screen)")
	}
}

func TestWebhookNavigation(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("j")
	if w, _ := h.s.list.selected(); !strings.HasPrefix(w.ID, "whk_evil") {
		t.Fatalf("j selected %s", w.ID)
	}
	h.Press("G")
	if w, _ := h.s.list.selected(); w.ID != "whk_demo" {
		t.Fatalf("G selected %s", w.ID)
	}
	if !h.svc.Called("getWebhook " + tuitest.DemoAddr + " whk_demo") {
		t.Fatal("selecting an inbox webhook did not fetch it in its inbox scope")
	}
	if !strings.Contains(h.shown(), `1. subject contains "invoice"`) || !strings.Contains(h.shown(), "only emails passing") {
		t.Fatalf("detail lacks the filter:\n%s", h.shown())
	}
	h.Press("g", "enter")
	if h.s.Focus() != PaneDetail {
		t.Fatalf("enter: focus %v", h.s.Focus())
	}
	h.Press("tab")
	if h.s.Focus() != PaneDeliveries {
		t.Fatalf("tab: focus %v", h.s.Focus())
	}
	h.Press("tab")
	if h.s.Focus() != PaneList {
		t.Fatalf("tab wraps: focus %v", h.s.Focus())
	}
	h.Press("shift+tab")
	if h.s.Focus() != PaneDeliveries {
		t.Fatalf("shift+tab: focus %v", h.s.Focus())
	}
	h.Press("esc")
	if h.s.Focus() != PaneList {
		t.Fatalf("esc from a pane: focus %v", h.s.Focus())
	}
	h.Press("r")
	if !strings.Contains(h.ctx.Status().Text, "reloading") {
		t.Fatalf("r: status %q", h.ctx.Status().Text)
	}
}

func TestWebhookNarrowShowsOnePane(t *testing.T) {
	h := newHarness(t, 70, 21)
	if v := h.shown(); !strings.Contains(v, "Webhooks (3)") || strings.Contains(v, "Deliveries (") {
		t.Fatalf("narrow list view:\n%s", v)
	}
	h.Press("enter")
	if v := h.shown(); !strings.Contains(v, "Webhook whk_team") || strings.Contains(v, "Webhooks (3)") {
		t.Fatalf("narrow detail view:\n%s", v)
	}
	h.Press("pgdown", "pgup", "down", "up", "end", "home")
	if h.s.detail.view.YOffset() != 0 {
		t.Fatalf("detail offset %d after home", h.s.detail.view.YOffset())
	}
}

func TestWebhookSecretMaskedAndRevealed(t *testing.T) {
	h := newHarness(t, 120, 37)
	view := h.shown()
	if strings.Contains(view, "whsec_teamsecret123") || !strings.Contains(view, "whsec_•") {
		t.Fatalf("secret not masked:\n%s", view)
	}
	h.Press("s")
	if !strings.Contains(h.shown(), "whsec_teamsecret123") {
		t.Fatal("s did not reveal the secret")
	}
	h.Press("s")
	if strings.Contains(h.shown(), "whsec_teamsecret123") {
		t.Fatal("s did not hide the secret again")
	}
}

func TestWebhookToggleAndDelete(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("x")
	if !h.svc.Called(`updateWebhook  whk_team {"enabled":false}`) {
		t.Fatalf("x did not disable: %v", h.svc.Calls())
	}
	if w, _ := h.s.list.selected(); w.Enabled {
		t.Fatal("the list still shows the webhook enabled")
	}
	if !strings.Contains(h.shown(), "○ disabled") {
		t.Fatal("detail does not show disabled")
	}
	h.Press("x")
	if w, _ := h.s.list.selected(); !w.Enabled {
		t.Fatal("x did not enable again")
	}
	h.Press("d")
	if _, ok := h.ctx.Dialog().(*ui.Confirm); !ok {
		t.Fatal("d did not ask for confirmation")
	}
	h.Press("n")
	if h.svc.Called("deleteWebhook") || len(h.s.state.hooks) != 3 {
		t.Fatal("n deleted the webhook")
	}
	h.Press("d", "y")
	if !h.svc.Called("deleteWebhook  whk_team") || h.s.state.index("whk_team") >= 0 {
		t.Fatalf("y did not delete: %v", h.svc.Calls())
	}
	if !strings.Contains(h.ctx.Status().Text, "deleted") {
		t.Fatalf("status %q", h.ctx.Status().Text)
	}
}

func TestWebhookActionFailureIsShown(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.svc.RejectWebhooks(&client.APIError{StatusCode: 404, Message: "webhook whk_team not found"})
	h.Press("x")
	if h.ctx.Status().Level != ui.LevelError || !strings.Contains(h.ctx.Status().Text, "not found") {
		t.Fatalf("status %q level %v", h.ctx.Status().Text, h.ctx.Status().Level)
	}
	if w, _ := h.s.list.selected(); !w.Enabled {
		t.Fatal("a failed disable changed the list")
	}
}

func TestWebhookTestShowsResult(t *testing.T) {
	h := newHarness(t, 80, 21)
	h.Press("t")
	if !h.svc.Called("testWebhook  whk_team") {
		t.Fatal("t did not test the webhook")
	}
	view := h.shown()
	for _, want := range []string{"── Test 12:00:00", "✓ delivered · HTTP 200 · 42 ms", `{"ok":true}`, "Payload sent", `"id": "evt_test"`} {
		if !strings.Contains(view, want) {
			t.Errorf("test result lacks %q:\n%s", want, view)
		}
	}
	tuitest.AssertNoControls(t, view)
}

func TestWebhookRotateShowsGrace(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("R")
	if _, ok := h.ctx.Dialog().(*ui.Confirm); !ok {
		t.Fatal("R did not ask for confirmation")
	}
	h.Press("y", "s")
	if !h.svc.Called("rotateWebhook  whk_team") {
		t.Fatal("rotate not called")
	}
	view := h.shown()
	for _, want := range []string{"whsec_rotated", "valid until 2025-06-01 13:00:00 UTC", "(1h00m left)"} {
		if !strings.Contains(view, want) {
			t.Errorf("rotation lacks %q:\n%s", want, view)
		}
	}
}

func TestWebhookHelpAndMouse(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("?")
	if !strings.Contains(h.shown(), "Webhook keys") || !strings.Contains(h.shown(), "rotate secret") {
		t.Fatalf("? did not show the webhook keys:\n%s", h.shown())
	}
	h.Press("z")
	if h.ctx.Dialog() != nil {
		t.Fatal("a key did not close the help")
	}
	// The third webhook's first line: border (1), header
	// (3 lines), two rows of two lines.
	l := h.s.lay.Of(h.s.list)
	h.Send(tea.MouseClickMsg(tea.Mouse{X: l.X + 3, Y: l.Y + 1 + 3 + 4, Button: tea.MouseLeft}))
	if w, _ := h.s.list.selected(); w.ID != "whk_demo" {
		t.Fatalf("click selected %s", w.ID)
	}
	d := h.s.lay.Of(h.s.deliveries)
	h.Send(tea.MouseClickMsg(tea.Mouse{X: d.X + 3, Y: d.Y + 2, Button: tea.MouseLeft}))
	if h.s.Focus() != PaneDeliveries {
		t.Fatalf("click on deliveries: focus %v", h.s.Focus())
	}
	h.Press("t") // a test result makes the detail longer than the pane
	before := h.s.detail.view.YOffset()
	dt := h.s.lay.Of(h.s.detail)
	h.Send(tea.MouseWheelMsg(tea.Mouse{X: dt.X + 3, Y: dt.Y + 2, Button: tea.MouseWheelUp}))
	if before == 0 || h.s.detail.view.YOffset() != before-ui.WheelLines {
		t.Fatalf("wheel up moved the detail from %d to %d", before, h.s.detail.view.YOffset())
	}
}

func TestWebhookHostileTextIsSanitized(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("j")
	withDeliveries(h)
	view := h.shown()
	tuitest.AssertNoControls(t, view)
	if !strings.Contains(view, "https://evil.test/") || !strings.Contains(view, "red") {
		t.Fatalf("hostile webhook not shown:\n%s", view)
	}
	h.Press("tab", "tab")
	tuitest.AssertNoControls(t, h.shown())
}

// Each request field the server names has its stop in the form, a field
// within one that of the field it is part of.
func TestStopForField(t *testing.T) {
	cases := map[string]formStop{
		"url": {kind: stopURL}, "URL": {kind: stopURL}, "events": {kind: stopEvents},
		"template.body": {kind: stopBody}, "template": {kind: stopTemplate}, "template.type": {kind: stopTemplate},
		"filter.mode": {kind: stopFilter}, "filter.rules": {kind: stopFilter},
		"filter.rules[1].value":    {kind: stopRuleValue, rule: 1},
		"filter.rules[0].field":    {kind: stopRuleField},
		"filter.rules[2].operator": {kind: stopRuleOp, rule: 2},
		"description":              {kind: stopDescription},
	}
	for field, want := range cases {
		got, ok := stopForField(field)
		if !ok || got != want {
			t.Errorf("%q: got %+v %v, want %+v", field, got, ok, want)
		}
	}
	for _, field := range []string{"", "webhook", "urls"} {
		if _, ok := stopForField(field); ok {
			t.Errorf("%q was tied to a field of the form", field)
		}
	}
}

func TestWebhookMessageErrorsAreShown(t *testing.T) {
	h := newHarness(t, 120, 37)
	d := h.s.state
	h.Send(webhooksLoadedMsg{hooks: tuitest.Webhooks(), err: errors.New("list webhooks of x@y: boom")})
	if len(d.hooks) != 3 || !strings.Contains(h.shown(), "⚠ list webhooks of x@y: boom") || h.ctx.Status().Level != ui.LevelError {
		t.Fatalf("partial list error not shown:\n%s", h.shown())
	}
	h.Send(webhookLoadedMsg{id: "whk_team", err: errors.New("gone")})
	h.Send(webhookMetricsMsg{err: errors.New("metrics down")})
	v := h.shown()
	if !strings.Contains(v, "metrics unavailable: metrics down") {
		t.Errorf("metrics error not shown:\n%s", v)
	}
	h.Send(webhookDeletedMsg{id: "whk_team", err: errors.New("nope")})
	if d.index("whk_team") < 0 || !strings.Contains(h.ctx.Status().Text, "delete webhook: nope") {
		t.Fatalf("failed delete: status %q", h.ctx.Status().Text)
	}
	h.Send(webhookTestedMsg{id: "whk_team", err: errors.New("timeout")})
	if !strings.Contains(h.shown(), "✗ timeout") {
		t.Fatalf("failed test not shown:\n%s", h.shown())
	}
	h.Send(webhookRotatedMsg{id: "whk_team", err: errors.New("denied")})
	if !strings.Contains(h.shown(), "✗ denied") {
		t.Fatalf("failed rotation not shown:\n%s", h.shown())
	}
	h.Send(ReceiverMsg{Err: errors.New("start the built-in receiver: address in use")})
	if d.recv != nil || !strings.Contains(d.recvErr, "address in use") || h.s.starting {
		t.Fatalf("receiver start failure: %q", d.recvErr)
	}
}

func TestWebhookTemplatesFallBack(t *testing.T) {
	h := newBareHarness(t, 120, 37)
	h.Send(webhookTemplatesMsg{err: errors.New("no templates")})
	h.Press("n")
	f := h.form()
	if len(f.template.Options) != len(model.BuiltinTemplates())+1 || !strings.Contains(h.shown(), "built-in templates shown") {
		t.Fatalf("templates: %v\n%s", f.template.Options, h.shown())
	}
}

func TestWebhookKeysWithoutSelection(t *testing.T) {
	h := newBareHarness(t, 120, 37)
	h.Run(h.s.Open())
	h.Press("t")
	if h.ctx.Status().Text != "no webhook selected" || h.svc.Called("testWebhook") {
		t.Fatalf("t with no webhook: %q", h.ctx.Status().Text)
	}
	h.s.starting = true
	h.Press("l")
	if !strings.Contains(h.ctx.Status().Text, "already") {
		t.Fatalf("l while starting: %q", h.ctx.Status().Text)
	}
}
