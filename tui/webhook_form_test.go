package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
)

// ctrl presses ctrl+r.
func ctrl(t testing.TB, m *Model, r rune) {
	t.Helper()
	send(t, m, tea.KeyPressMsg(tea.Key{Code: r, Mod: tea.ModCtrl}))
}

func openForm(t testing.TB, m *Model) *webhookForm {
	t.Helper()
	f, ok := m.overlay.(*webhookForm)
	if !ok {
		t.Fatalf("no webhook form open (overlay %T)", m.overlay)
	}
	return f
}

func TestWebhookCreateForm(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "n")
	f := openForm(t, m)
	if f.template.options[0] != "default" || f.tplLabel["slack"] != "T slack" {
		t.Fatalf("templates not taken from the templates endpoint: %v %v", f.template.options, f.tplLabel)
	}
	press(t, m, "tab")
	typeText(t, m, "hooks.test/x")
	press(t, m, "tab", "right", "space", "enter")
	want := `createWebhook  {"url":"https://hooks.test/x","events":["email.received","email.stored"],"template":"default"}`
	if !svc.called(want) {
		t.Fatalf("create not sent as %s: %v", want, svc.calls)
	}
	if m.overlay != nil {
		t.Fatal("the form stayed open after success")
	}
	if h, _ := m.hooks.selected(); h.ID != "whk_new1" || h.URL != "https://hooks.test/x" {
		t.Fatalf("the new webhook is not selected: %+v", h)
	}
	if !strings.Contains(m.status.text, "whk_new1 created") {
		t.Fatalf("status %q", m.status.text)
	}
}

func TestWebhookCreateInboxCustomFiltered(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "n", "right", "tab")
	ctrl(t, m, 'u')
	typeText(t, m, "https://a.test/h")
	press(t, m, "tab", "tab", "left") // template: back from default to custom
	if !openForm(t, m).custom() {
		t.Fatal("left from the first template did not reach custom")
	}
	press(t, m, "tab")
	typeText(t, m, `{"s":"{{data.subject}}"}`)
	press(t, m, "tab", "space") // filter: all rules, one rule added
	if f := openForm(t, m); f.filter.index != 1 || len(f.rules) != 1 {
		t.Fatalf("choosing a filter mode: mode %d, %d rules", f.filter.index, len(f.rules))
	}
	press(t, m, "tab", "tab", "right", "tab") // field subject, operator contains, value
	typeText(t, m, "invoice")
	press(t, m, "tab", "space") // exact case
	ctrl(t, m, 'n')
	if f := openForm(t, m); len(f.rules) != 2 || f.current() != (formStop{kind: stopRuleField, rule: 1}) {
		t.Fatalf("ctrl+n: %d rules, focus %+v", len(f.rules), f.current())
	}
	ctrl(t, m, 'x')
	if f := openForm(t, m); len(f.rules) != 1 {
		t.Fatalf("ctrl+x left %d rules", len(f.rules))
	}
	press(t, m, "shift+tab", "tab", "tab", "tab", "tab", "tab") // from rule 1's case to description
	if f := openForm(t, m); f.current().kind != stopDescription {
		t.Fatalf("focus %+v, want description", f.current())
	}
	typeText(t, m, "ci hook")
	if v := plain(m); !strings.Contains(v, "rule 1") || !strings.Contains(v, "Aa exact case") {
		t.Fatalf("form view lacks the rule:\n%s", v)
	}
	press(t, m, "enter")
	for _, want := range []string{
		"createWebhook " + demoAddr + " ",
		`"template":{"type":"custom","body":"{\"s\":\"{{data.subject}}\"}"}`,
		`"filter":{"mode":"all","rules":[{"field":"subject","operator":"contains","value":"invoice","caseSensitive":true}]}`,
		`"description":"ci hook"`,
	} {
		found := false
		for _, c := range svc.calls {
			found = found || strings.Contains(c, want)
		}
		if !found {
			t.Errorf("create lacks %s: %v", want, svc.calls)
		}
	}
	if h, _ := m.hooks.selected(); h.Scope != "inbox" || h.InboxEmail != demoAddr {
		t.Fatalf("new inbox webhook: %+v", h)
	}
}

func TestWebhookFormChecksBeforeSending(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "n", "tab")
	ctrl(t, m, 'u')
	press(t, m, "tab", "space", "enter")
	f := openForm(t, m)
	if svc.called("createWebhook") {
		t.Fatal("an invalid form was sent")
	}
	if f.errs[formStop{kind: stopURL}] == "" || f.errs[formStop{kind: stopEvents}] == "" {
		t.Fatalf("errors %v", f.errs)
	}
	if f.current().kind != stopURL {
		t.Fatalf("focus %+v, want the first field in error", f.current())
	}
	v := plain(m)
	if !strings.Contains(v, "✗ enter the URL deliveries go to") || !strings.Contains(v, "✗ tick at least one event") {
		t.Fatalf("errors not shown inline:\n%s", v)
	}
	press(t, m, "esc")
	if m.overlay != nil {
		t.Fatal("esc did not close the form")
	}
}

func TestWebhookFormShowsServerErrorsInline(t *testing.T) {
	m, svc := newWebhookTestModel(t, 80, 24, true)
	svc.hooks.reject = &client.APIError{StatusCode: 400, Message: "url must use https (http is allowed only when the server sets SVC_WEBHOOK_ALLOW_HTTP)"}
	press(t, m, "n", "tab")
	ctrl(t, m, 'u')
	typeText(t, m, "http://insecure.test/h")
	press(t, m, "tab", "tab", "tab", "space") // filter with one rule
	press(t, m, "tab", "tab", "tab")
	typeText(t, m, "(")
	press(t, m, "enter")
	f := openForm(t, m)
	if f.busy || !strings.Contains(f.errs[formStop{kind: stopURL}], "url must use https") {
		t.Fatalf("busy %v errors %v", f.busy, f.errs)
	}
	if f.current().kind != stopURL || f.url.String() != "http://insecure.test/h" {
		t.Fatalf("focus %+v url %q", f.current(), f.url.String())
	}
	v := plain(m)
	if !strings.Contains(v, "✗ url must use https") || !strings.Contains(v, "400 Bad Request") {
		t.Fatalf("server error not inline:\n%s", v)
	}
	svc.hooks.reject = &client.APIError{StatusCode: 422, Message: "filter.rules[0].value is not a valid regular expression: missing closing )"}
	press(t, m, "enter")
	f = openForm(t, m)
	if f.errs[formStop{kind: stopRuleValue}] == "" || f.current() != (formStop{kind: stopRuleValue}) {
		t.Fatalf("rule error: %v focus %+v", f.errs, f.current())
	}
	svc.hooks.reject = &client.APIError{StatusCode: 409, Message: "webhook limit reached"}
	press(t, m, "enter")
	if f = openForm(t, m); len(f.errs) != 0 || !strings.Contains(f.err, "webhook limit reached") {
		t.Fatalf("general error: %v %q", f.errs, f.err)
	}
}

func TestWebhookEditForm(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "G", "e")
	f := openForm(t, m)
	if f.url.String() != "https://ci.example.org/mail" || !f.custom() || len(f.rules) != 2 || !f.rules[1].caseSensitive {
		t.Fatalf("form not filled from the webhook: url %q custom %v rules %d", f.url.String(), f.custom(), len(f.rules))
	}
	press(t, m, "shift+tab")
	typeText(t, m, "nightly")
	press(t, m, "enter")
	for _, want := range []string{
		"updateWebhook " + demoAddr + " whk_demo ",
		`"requireAuth":true`, `"description":"nightly"`, `"type":"custom"`,
		`{"field":"from.address","operator":"domain","value":"example.com","caseSensitive":true}`,
	} {
		found := false
		for _, c := range svc.calls {
			found = found || strings.Contains(c, want)
		}
		if !found {
			t.Errorf("update lacks %s: %v", want, svc.calls)
		}
	}
	if m.overlay != nil || !strings.Contains(m.status.text, "saved") {
		t.Fatalf("overlay %T status %q", m.overlay, m.status.text)
	}
	press(t, m, "e", "tab", "tab", "tab", "tab", "left", "enter") // filter: none
	last := ""
	for _, c := range svc.calls {
		if strings.HasPrefix(c, "updateWebhook ") {
			last = c
		}
	}
	if !strings.Contains(last, `"filter":null`) {
		t.Fatalf("removing the filter did not send null: %s", last)
	}
	if h, _ := m.hooks.selected(); h.Filter != nil {
		t.Fatal("the filter is still shown")
	}
}
