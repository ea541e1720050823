package tui

import (
	"errors"
	"time"

	"sandview/model"

	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
)

func TestWebhookViewOpensAndCloses(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	if !m.hooks.shown {
		t.Fatal("w did not open the webhooks view")
	}
	for _, call := range []string{"listWebhooks  ", "listWebhooks " + demoAddr, "listWebhooks " + plainAddr, "webhookMetrics", "webhookTemplates", "getWebhook  whk_team"} {
		if !svc.called(strings.TrimSuffix(call, " ")) {
			t.Errorf("opening the view did not call %q; calls: %v", call, svc.calls)
		}
	}
	if svc.called("listWebhooks " + oldAddr) {
		t.Error("the webhooks of an expired inbox were listed")
	}
	if got := len(m.hooks.data.hooks); got != 3 {
		t.Fatalf("%d webhooks listed, want 3", got)
	}
	if h := m.hooks.data.hooks; h[0].ID != "whk_team" || h[2].ID != "whk_demo" {
		t.Fatalf("global webhooks must come first: %s, %s, %s", h[0].ID, h[1].ID, h[2].ID)
	}
	view := plain(m)
	for _, want := range []string{"Webhooks (3)", "3 webhooks: 2 global · 1 inbox · 2 enabled", "deliveries 18: 12 ok · 6 failed", "n new webhook", "Stats        12 deliveries · 11 ok · 1 failed"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	press(t, m, "esc")
	if m.hooks.shown {
		t.Fatal("esc on the list did not return to the mail view")
	}
	if !strings.Contains(plain(m), "Inboxes (3)") {
		t.Fatal("the mail view is not back")
	}
	press(t, m, "w", "w")
	if m.hooks.shown {
		t.Fatal("w in the webhooks view did not return to the mail view")
	}
}

func TestWebhookKeysDoNotLeakIntoFilter(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, true)
	press(t, m, "tab", "/")
	typeText(t, m, "w")
	if m.hooks.shown || m.messages.filter.String() != "w" {
		t.Fatalf("w while filtering: shown=%v filter=%q", m.hooks.shown, m.messages.filter.String())
	}
}

func TestWebhookNavigation(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "j")
	if h, _ := m.hooks.selected(); !strings.HasPrefix(h.ID, "whk_evil") {
		t.Fatalf("j selected %s", h.ID)
	}
	press(t, m, "G")
	if h, _ := m.hooks.selected(); h.ID != "whk_demo" {
		t.Fatalf("G selected %s", h.ID)
	}
	if !svc.called("getWebhook " + demoAddr + " whk_demo") {
		t.Fatal("selecting an inbox webhook did not fetch it in its inbox scope")
	}
	if !strings.Contains(plain(m), `1. subject contains "invoice"`) || !strings.Contains(plain(m), "only emails passing") {
		t.Fatalf("detail lacks the filter:\n%s", plain(m))
	}
	press(t, m, "g", "enter")
	if m.hooks.focus != hookDetail {
		t.Fatalf("enter: focus %v", m.hooks.focus)
	}
	press(t, m, "tab")
	if m.hooks.focus != hookDeliveries {
		t.Fatalf("tab: focus %v", m.hooks.focus)
	}
	press(t, m, "tab")
	if m.hooks.focus != hookList {
		t.Fatalf("tab wraps: focus %v", m.hooks.focus)
	}
	press(t, m, "shift+tab")
	if m.hooks.focus != hookDeliveries {
		t.Fatalf("shift+tab: focus %v", m.hooks.focus)
	}
	press(t, m, "esc")
	if m.hooks.focus != hookList || !m.hooks.shown {
		t.Fatalf("esc from a pane: focus %v shown %v", m.hooks.focus, m.hooks.shown)
	}
	press(t, m, "r")
	if !strings.Contains(m.status.text, "reloading") {
		t.Fatalf("r: status %q", m.status.text)
	}
}

func TestWebhookNarrowShowsOnePane(t *testing.T) {
	m, _ := newWebhookTestModel(t, 70, 24, true)
	if v := plain(m); !strings.Contains(v, "Webhooks (3)") || strings.Contains(v, "Deliveries (") {
		t.Fatalf("narrow list view:\n%s", v)
	}
	press(t, m, "enter")
	if v := plain(m); !strings.Contains(v, "Webhook whk_team") || strings.Contains(v, "Webhooks (3)") {
		t.Fatalf("narrow detail view:\n%s", v)
	}
	press(t, m, "pgdown", "pgup", "down", "up", "end", "home")
	if m.hooks.detail.offset != 0 {
		t.Fatalf("detail offset %d after home", m.hooks.detail.offset)
	}
}

func TestWebhookSecretMaskedAndRevealed(t *testing.T) {
	m, _ := newWebhookTestModel(t, 120, 40, true)
	view := plain(m)
	if strings.Contains(view, "whsec_teamsecret123") || !strings.Contains(view, "whsec_•") {
		t.Fatalf("secret not masked:\n%s", view)
	}
	press(t, m, "s")
	if !strings.Contains(plain(m), "whsec_teamsecret123") {
		t.Fatal("s did not reveal the secret")
	}
	press(t, m, "s")
	if strings.Contains(plain(m), "whsec_teamsecret123") {
		t.Fatal("s did not hide the secret again")
	}
}

func TestWebhookToggleAndDelete(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "x")
	if !svc.called(`updateWebhook  whk_team {"enabled":false}`) {
		t.Fatalf("x did not disable: %v", svc.calls)
	}
	if h, _ := m.hooks.selected(); h.Enabled {
		t.Fatal("the list still shows the webhook enabled")
	}
	if !strings.Contains(plain(m), "○ disabled") {
		t.Fatal("detail does not show disabled")
	}
	press(t, m, "x")
	if h, _ := m.hooks.selected(); !h.Enabled {
		t.Fatal("x did not enable again")
	}
	press(t, m, "d")
	if _, ok := m.overlay.(*confirm); !ok {
		t.Fatal("d did not ask for confirmation")
	}
	press(t, m, "n")
	if svc.called("deleteWebhook") || len(m.hooks.data.hooks) != 3 {
		t.Fatal("n deleted the webhook")
	}
	press(t, m, "d", "y")
	if !svc.called("deleteWebhook  whk_team") || m.hooks.data.index("whk_team") >= 0 {
		t.Fatalf("y did not delete: %v", svc.calls)
	}
	if !strings.Contains(m.status.text, "deleted") {
		t.Fatalf("status %q", m.status.text)
	}
}

func TestWebhookActionFailureIsShown(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	svc.hooks.reject = &client.APIError{StatusCode: 404, Message: "webhook whk_team not found"}
	press(t, m, "x")
	if m.status.level != levelError || !strings.Contains(m.status.text, "not found") {
		t.Fatalf("status %q level %v", m.status.text, m.status.level)
	}
	if h, _ := m.hooks.selected(); !h.Enabled {
		t.Fatal("a failed disable changed the list")
	}
}

func TestWebhookTestShowsResult(t *testing.T) {
	m, svc := newWebhookTestModel(t, 80, 24, true)
	press(t, m, "t")
	if !svc.called("testWebhook  whk_team") {
		t.Fatal("t did not test the webhook")
	}
	view := plain(m)
	for _, want := range []string{"── Test 12:00:00", "✓ delivered · HTTP 200 · 42 ms", `{"ok":true}`, "Payload sent", `"id": "evt_test"`} {
		if !strings.Contains(view, want) {
			t.Errorf("test result lacks %q:\n%s", want, view)
		}
	}
	assertNoControls(t, view)
}

func TestWebhookRotateShowsGrace(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "R")
	if _, ok := m.overlay.(*confirm); !ok {
		t.Fatal("R did not ask for confirmation")
	}
	press(t, m, "y", "s")
	if !svc.called("rotateWebhook  whk_team") {
		t.Fatal("rotate not called")
	}
	view := plain(m)
	for _, want := range []string{"whsec_rotated", "valid until 2025-06-01 13:00:00 UTC", "(1h00m left)"} {
		if !strings.Contains(view, want) {
			t.Errorf("rotation lacks %q:\n%s", want, view)
		}
	}
}

func TestWebhookHelpAndMouse(t *testing.T) {
	m, _ := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "?")
	if !strings.Contains(plain(m), "Webhook keys") || !strings.Contains(plain(m), "rotate secret") {
		t.Fatalf("? did not show the webhook keys:\n%s", plain(m))
	}
	press(t, m, "j")
	if m.overlay != nil {
		t.Fatal("a key did not close the help")
	}
	// The third webhook's first line: top banner (1), border (1), header
	// (3 lines), two rows of two lines.
	l := m.hooks.lay.list
	send(t, m, tea.MouseClickMsg(tea.Mouse{X: l.x + 3, Y: l.y + 1 + 3 + 4, Button: tea.MouseLeft}))
	if h, _ := m.hooks.selected(); h.ID != "whk_demo" {
		t.Fatalf("click selected %s", h.ID)
	}
	d := m.hooks.lay.deliveries
	send(t, m, tea.MouseClickMsg(tea.Mouse{X: d.x + 3, Y: d.y + 2, Button: tea.MouseLeft}))
	if m.hooks.focus != hookDeliveries {
		t.Fatalf("click on deliveries: focus %v", m.hooks.focus)
	}
	press(t, m, "t") // a test result makes the detail longer than the pane
	before := m.hooks.detail.offset
	dt := m.hooks.lay.detail
	send(t, m, tea.MouseWheelMsg(tea.Mouse{X: dt.x + 3, Y: dt.y + 2, Button: tea.MouseWheelUp}))
	if before == 0 || m.hooks.detail.offset != before-wheelStep {
		t.Fatalf("wheel up moved the detail from %d to %d", before, m.hooks.detail.offset)
	}
}

func TestWebhookHostileTextIsSanitized(t *testing.T) {
	m, _ := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "j")
	withDeliveries(t, m)
	view := plain(m)
	assertNoControls(t, view)
	if !strings.Contains(view, "https://evil.test/") || !strings.Contains(view, "red") {
		t.Fatalf("hostile webhook not shown:\n%s", view)
	}
	press(t, m, "tab", "tab")
	assertNoControls(t, plain(m))
}

func TestStopForMessage(t *testing.T) {
	cases := map[string]formStop{
		"url must use https (http is allowed only for loopback hosts on this server)": {kind: stopURL},
		"URL is not a valid URL":                                             {kind: stopURL},
		"events must list at least one of email.received":                    {kind: stopEvents},
		`unknown event "x": use email.received`:                              {kind: stopEvents},
		"template.body does not render to valid JSON with a sample event":    {kind: stopBody},
		`unknown template "x": use one of default`:                           {kind: stopTemplate},
		"filter.mode must be all or any":                                     {kind: stopFilter},
		"filter.rules[1].value is not a valid regular expression: missing )": {kind: stopRuleValue, rule: 1},
		"filter.rules[0].field must be one of the filterable fields":         {kind: stopRuleField},
		"filter.rules[2].operator is unknown":                                {kind: stopRuleOp, rule: 2},
		"description is longer than 500 characters":                          {kind: stopDescription},
	}
	for msg, want := range cases {
		got, ok := stopForMessage(msg)
		if !ok || got != want {
			t.Errorf("%q: got %+v %v, want %+v", msg, got, ok, want)
		}
	}
	if _, ok := stopForMessage("webhook limit reached"); ok {
		t.Error("a message about no field was tied to one")
	}
}

func TestWebhooksWithoutService(t *testing.T) {
	dark := true
	m := newModel(options{dark: &dark, now: func() time.Time { return testNow }, tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }})
	press(t, &m, "w")
	if !strings.Contains(plain(&m), errNoService.Error()) {
		t.Fatalf("no service: the error is not shown:\n%s", plain(&m))
	}
}

func TestWebhookMessageErrorsAreShown(t *testing.T) {
	m, _ := newWebhookTestModel(t, 120, 40, true)
	d := m.hooks.data
	send(t, m, webhooksLoadedMsg{hooks: fixtureWebhooks(), err: errors.New("list webhooks of x@y: boom")})
	if len(d.hooks) != 3 || !strings.Contains(plain(m), "⚠ list webhooks of x@y: boom") || m.status.level != levelError {
		t.Fatalf("partial list error not shown:\n%s", plain(m))
	}
	send(t, m, webhookLoadedMsg{id: "whk_team", err: errors.New("gone")})
	send(t, m, webhookMetricsMsg{err: errors.New("metrics down")})
	v := plain(m)
	if !strings.Contains(v, "metrics unavailable: metrics down") {
		t.Errorf("metrics error not shown:\n%s", v)
	}
	send(t, m, webhookDeletedMsg{id: "whk_team", err: errors.New("nope")})
	if d.index("whk_team") < 0 || !strings.Contains(m.status.text, "delete webhook: nope") {
		t.Fatalf("failed delete: status %q", m.status.text)
	}
	send(t, m, webhookTestedMsg{id: "whk_team", err: errors.New("timeout")})
	if !strings.Contains(plain(m), "✗ timeout") {
		t.Fatalf("failed test not shown:\n%s", plain(m))
	}
	send(t, m, webhookRotatedMsg{id: "whk_team", err: errors.New("denied")})
	if !strings.Contains(plain(m), "✗ denied") {
		t.Fatalf("failed rotation not shown:\n%s", plain(m))
	}
	send(t, m, receiverMsg{err: errors.New("start the built-in receiver: address in use")})
	if d.recv != nil || !strings.Contains(d.recvErr, "address in use") || m.hooks.starting {
		t.Fatalf("receiver start failure: %q", d.recvErr)
	}
}

func TestWebhookTemplatesFallBack(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, true)
	send(t, m, webhookTemplatesMsg{err: errors.New("no templates")})
	m.hooks.shown = true
	press(t, m, "n")
	f := openForm(t, m)
	if len(f.template.options) != len(model.BuiltinTemplates())+1 || !strings.Contains(plain(m), "built-in templates shown") {
		t.Fatalf("templates: %v\n%s", f.template.options, plain(m))
	}
}

func TestWebhookKeysWithoutSelection(t *testing.T) {
	m, svc := newTestModel(t, 120, 40, true)
	press(t, m, "w", "t")
	if m.status.text != "no webhook selected" || svc.called("testWebhook") {
		t.Fatalf("t with no webhook: %q", m.status.text)
	}
	m.hooks.starting = true
	press(t, m, "l")
	if !strings.Contains(m.status.text, "already") {
		t.Fatalf("l while starting: %q", m.status.text)
	}
	msgs := press(t, m, "q")
	quit := false
	for _, msg := range msgs {
		_, ok := msg.(tea.QuitMsg)
		quit = quit || ok
	}
	if !quit {
		t.Fatalf("q did not quit: %v", msgs)
	}
}
