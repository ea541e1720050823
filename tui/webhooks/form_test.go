package webhooks

import (
	"strings"
	"testing"

	"sandview/client"
	"sandview/tui/tuitest"
)

func TestWebhookCreateForm(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("n")
	f := h.form()
	if f.template.Options[0] != "default" || f.tplLabel["slack"] != "T slack" {
		t.Fatalf("templates not taken from the templates endpoint: %v %v", f.template.Options, f.tplLabel)
	}
	h.Press("tab")
	h.Type("hooks.test/x")
	h.Press("tab", "right", "space", "enter")
	want := `createWebhook  {"url":"https://hooks.test/x","events":["email.received","email.stored"],"template":"default"}`
	if !h.svc.Called(want) {
		t.Fatalf("create not sent as %s: %v", want, h.svc.Calls())
	}
	if h.ctx.Dialog() != nil {
		t.Fatal("the form stayed open after success")
	}
	if w, _ := h.s.list.selected(); w.ID != "whk_new1" || w.URL != "https://hooks.test/x" {
		t.Fatalf("the new webhook is not selected: %+v", h)
	}
	if !strings.Contains(h.ctx.Status().Text, "whk_new1 created") {
		t.Fatalf("status %q", h.ctx.Status().Text)
	}
}

func TestWebhookCreateInboxCustomFiltered(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("n", "right", "tab")
	h.Ctrl('u')
	h.Type("https://a.test/h")
	h.Press("tab", "tab", "left") // template: back from default to custom
	if !h.form().custom() {
		t.Fatal("left from the first template did not reach custom")
	}
	h.Press("tab")
	h.Type(`{"s":"{{data.subject}}"}`)
	h.Press("tab", "space") // filter: all rules, one rule added
	if f := h.form(); f.filter.Index != 1 || len(f.rules) != 1 {
		t.Fatalf("choosing a filter mode: mode %d, %d rules", f.filter.Index, len(f.rules))
	}
	h.Press("tab", "tab", "right", "tab") // field subject, operator contains, value
	h.Type("invoice")
	h.Press("tab", "space") // exact case
	h.Ctrl('n')
	if f := h.form(); len(f.rules) != 2 || f.current() != (formStop{kind: stopRuleField, rule: 1}) {
		t.Fatalf("ctrl+n: %d rules, focus %+v", len(f.rules), f.current())
	}
	h.Ctrl('x')
	if f := h.form(); len(f.rules) != 1 {
		t.Fatalf("ctrl+x left %d rules", len(f.rules))
	}
	h.Press("shift+tab", "tab", "tab", "tab", "tab", "tab") // from rule 1's case to description
	if f := h.form(); f.current().kind != stopDescription {
		t.Fatalf("focus %+v, want description", f.current())
	}
	h.Type("ci hook")
	if v := h.shown(); !strings.Contains(v, "rule 1") || !strings.Contains(v, "Aa exact case") {
		t.Fatalf("form view lacks the rule:\n%s", v)
	}
	h.Press("enter")
	for _, want := range []string{
		"createWebhook " + tuitest.DemoAddr + " ",
		`"template":{"type":"custom","body":"{\"s\":\"{{data.subject}}\"}"}`,
		`"filter":{"mode":"all","rules":[{"field":"subject","operator":"contains","value":"invoice","caseSensitive":true}]}`,
		`"description":"ci hook"`,
	} {
		found := false
		for _, c := range h.svc.Calls() {
			found = found || strings.Contains(c, want)
		}
		if !found {
			t.Errorf("create lacks %s: %v", want, h.svc.Calls())
		}
	}
	if w, _ := h.s.list.selected(); w.Scope != "inbox" || w.InboxEmail != tuitest.DemoAddr {
		t.Fatalf("new inbox webhook: %+v", h)
	}
}

func TestWebhookFormChecksBeforeSending(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("n", "tab")
	h.Ctrl('u')
	h.Press("tab", "space", "enter")
	f := h.form()
	if h.svc.Called("createWebhook") {
		t.Fatal("an invalid form was sent")
	}
	if f.errs[formStop{kind: stopURL}] == "" || f.errs[formStop{kind: stopEvents}] == "" {
		t.Fatalf("errors %v", f.errs)
	}
	if f.current().kind != stopURL {
		t.Fatalf("focus %+v, want the first field in error", f.current())
	}
	v := h.shown()
	if !strings.Contains(v, "✗ enter the URL deliveries go to") || !strings.Contains(v, "✗ tick at least one event") {
		t.Fatalf("errors not shown inline:\n%s", v)
	}
	h.Press("esc")
	if h.ctx.Dialog() != nil {
		t.Fatal("esc did not close the form")
	}
}

func TestWebhookFormShowsServerErrorsInline(t *testing.T) {
	h := newHarness(t, 80, 21)
	h.svc.RejectWebhooks(&client.InvalidWebhookError{Problems: []client.Problem{{Field: "url", Text: "url must use https (http is allowed only when the server sets SVC_WEBHOOK_ALLOW_HTTP)"}}})
	h.Press("n", "tab")
	h.Ctrl('u')
	h.Type("http://insecure.test/h")
	h.Press("tab", "tab", "tab", "space") // filter with one rule
	h.Press("tab", "tab", "tab")
	h.Type("(")
	h.Press("enter")
	f := h.form()
	if f.busy || !strings.Contains(f.errs[formStop{kind: stopURL}], "url must use https") {
		t.Fatalf("busy %v errors %v", f.busy, f.errs)
	}
	if f.current().kind != stopURL || f.url.Value() != "http://insecure.test/h" {
		t.Fatalf("focus %+v url %q", f.current(), f.url.Value())
	}
	v := h.shown()
	if !strings.Contains(v, "✗ url must use https") || !strings.Contains(v, "the server refused the webhook: see the marked field") {
		t.Fatalf("server error not inline:\n%s", v)
	}
	h.svc.RejectWebhooks(&client.InvalidWebhookError{Problems: []client.Problem{{Field: "filter.rules[0].value", Text: "filter.rules[0].value is not a valid regular expression: missing closing )"}}})
	h.Press("enter")
	f = h.form()
	if f.errs[formStop{kind: stopRuleValue}] == "" || f.current() != (formStop{kind: stopRuleValue}) {
		t.Fatalf("rule error: %v focus %+v", f.errs, f.current())
	}
	h.svc.RejectWebhooks(&client.InvalidWebhookError{Problems: []client.Problem{{Text: "webhook limit reached"}}})
	h.Press("enter")
	if f = h.form(); len(f.errs) != 0 || !strings.Contains(f.err, "webhook limit reached") {
		t.Fatalf("general error: %v %q", f.errs, f.err)
	}
}

func TestWebhookEditForm(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("G", "e")
	f := h.form()
	if f.url.Value() != "https://ci.example.org/mail" || !f.custom() || len(f.rules) != 2 || !f.rules[1].caseSensitive {
		t.Fatalf("form not filled from the webhook: url %q custom %v rules %d", f.url.Value(), f.custom(), len(f.rules))
	}
	h.Press("shift+tab")
	h.Type("nightly")
	h.Press("enter")
	for _, want := range []string{
		"updateWebhook " + tuitest.DemoAddr + " whk_demo ",
		`"requireAuth":true`, `"description":"nightly"`, `"type":"custom"`,
		`{"field":"from.address","operator":"domain","value":"example.com","caseSensitive":true}`,
	} {
		found := false
		for _, c := range h.svc.Calls() {
			found = found || strings.Contains(c, want)
		}
		if !found {
			t.Errorf("update lacks %s: %v", want, h.svc.Calls())
		}
	}
	if h.ctx.Dialog() != nil || !strings.Contains(h.ctx.Status().Text, "saved") {
		t.Fatalf("overlay %T status %q", h.ctx.Dialog(), h.ctx.Status().Text)
	}
	h.Press("e", "tab", "tab", "tab", "tab", "left", "enter") // filter: none
	last := ""
	for _, c := range h.svc.Calls() {
		if strings.HasPrefix(c, "updateWebhook ") {
			last = c
		}
	}
	if !strings.Contains(last, `"filter":null`) {
		t.Fatalf("removing the filter did not send null: %s", last)
	}
	if w, _ := h.s.list.selected(); w.Filter != nil {
		t.Fatal("the filter is still shown")
	}
}
