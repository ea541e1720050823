package webhook

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"sandview/model"
)

func hostileViews(t *testing.T) []*eventView {
	t.Helper()
	at := time.Date(2026, 11, 21, 13, 25, 55, 0, time.UTC)
	mail := hostileMail("h1")
	recv, err := newEventView(Incoming{Type: model.EventEmailReceived, At: at, InboxEmail: "qa@sandbox.test", InboxHash: "hash-qa",
		EmailID: "h1", Received: mail}, "evt_1", at, DefaultConfig().dataShape(), nil)
	if err != nil {
		t.Fatal(err)
	}
	summary := summaryOf(mail)
	st, err := newEventView(Incoming{Type: model.EventEmailStored, At: at, InboxEmail: "qa\"@sandbox.test", InboxHash: "h", EmailID: "h1"}, "evt_2", at, DefaultConfig().dataShape(), &summary)
	if err != nil {
		t.Fatal(err)
	}
	del, err := newEventView(Incoming{Type: model.EventEmailDeleted, At: at, InboxEmail: "qa@sandbox.test", InboxHash: "h", EmailID: "h1\n\"",
		Reason: "ttl"}, "evt_3", at, DefaultConfig().dataShape(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return []*eventView{recv, st, del}
}

func TestEveryTemplateYieldsValidJSONForHostileMail(t *testing.T) {
	custom := `{"s": "{{data.subject}}", "mixed": "Subject: {{data.subject}} from {{ data.from.name }}!",
		"whole": {{data.from}}, "n": "{{createdAt}}", "keys": {"{{data.subject}}": 1}, "list": ["{{data.headers.x-evil}}", {{data.attachments.0.filename}}]}`
	templates := []*model.WebhookTemplate{nil}
	for _, name := range model.BuiltinTemplates() {
		templates = append(templates, &model.WebhookTemplate{Type: name})
	}
	templates = append(templates, &model.WebhookTemplate{Type: model.TemplateCustom, Body: custom, ContentType: "application/vnd.test+json"})
	for _, tmpl := range templates {
		ct, err := compileTemplate(tmpl)
		if err != nil {
			t.Fatalf("compile %+v: %v", tmpl, err)
		}
		for _, v := range hostileViews(t) {
			out, err := ct.render(v)
			if err != nil {
				t.Fatalf("%s/%s: %v", ct.kind, v.envelope.Type, err)
			}
			if !json.Valid(out) {
				t.Errorf("%s/%s: invalid JSON:\n%s", ct.kind, v.envelope.Type, out)
			}
			if strings.Contains(string(out), "\u2028") {
				t.Errorf("%s/%s: raw U+2028 in output", ct.kind, v.envelope.Type)
			}
		}
	}
}

func TestBuiltinTemplateShapes(t *testing.T) {
	views := hostileViews(t)
	recv := views[0]
	render := func(name string, v *eventView) map[string]any {
		t.Helper()
		ct, err := compileTemplate(&model.WebhookTemplate{Type: name})
		if err != nil {
			t.Fatal(err)
		}
		out, err := ct.render(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m
	}
	nasty := hostileMail("x").Subject

	def := render(model.TemplateDefault, recv)
	if def["object"] != "event" || def["id"] != "evt_1" || def["data"].(map[string]any)["subject"] != nasty {
		t.Errorf("default: %v", def)
	}
	slack := render(model.TemplateSlack, recv)
	if _, ok := slack["text"].(string); !ok || len(slack["blocks"].([]any)) < 3 {
		t.Errorf("slack: %v", slack)
	}
	if strings.Contains(slack["blocks"].([]any)[1].(map[string]any)["fields"].([]any)[2].(map[string]any)["text"].(string), "</script>") {
		t.Error("slack mrkdwn not escaped")
	}
	discord := render(model.TemplateDiscord, recv)
	embeds := discord["embeds"].([]any)
	if discord["content"] == "" || len(embeds) != 1 || embeds[0].(map[string]any)["title"] != nasty {
		t.Errorf("discord: %v", discord)
	}
	teams := render(model.TemplateTeams, recv)
	if teams["@type"] != "MessageCard" || teams["@context"] != "https://schema.org/extensions" || teams["summary"] == "" || len(teams["sections"].([]any)) != 1 {
		t.Errorf("teams: %v", teams)
	}
	simple := render(model.TemplateSimple, recv)
	if len(simple) != 4 || simple["subject"] != nasty || simple["to"] != "qa@sandbox.test" || !strings.HasPrefix(simple["from"].(string), nasty) {
		t.Errorf("simple: %v", simple)
	}
	note := render(model.TemplateNotification, recv)
	if len(note) != 1 || !strings.Contains(note["text"].(string), "New email from") {
		t.Errorf("notification: %v", note)
	}
	zap := render(model.TemplateZapier, recv)
	for _, k := range []string{"eventId", "eventType", "createdAt", "fromAddress", "subject", "textBody", "attachmentCount", "authSpf", "receivedAt"} {
		if _, ok := zap[k]; !ok {
			t.Errorf("zapier lacks %s", k)
		}
	}
	for k, v := range zap {
		if _, nested := v.(map[string]any); nested {
			t.Errorf("zapier field %s is nested", k)
		}
	}
	// Stored and deleted events carry the remembered summary and their own text.
	stored := render(model.TemplateSimple, views[1])
	if stored["subject"] != nasty || !strings.Contains(stored["preview"].(string), "Stored") {
		t.Errorf("simple stored: %v", stored)
	}
	deletedNote := render(model.TemplateNotification, views[2])
	if !strings.Contains(deletedNote["text"].(string), "(ttl)") {
		t.Errorf("notification deleted: %v", deletedNote)
	}
}

func TestCustomTemplateSubstitution(t *testing.T) {
	recv := hostileViews(t)[0]
	nasty := hostileMail("x").Subject
	body := `{"z": "{{id}}", "a": {{createdAt}}, "ts": "{{timestamp}}", "subj": "{{data.subject}}",
		"line": "[{{data.auth.spf}}/{{data.auth.dkim}}/{{data.auth.dmarc}}] {{data.snippet}}",
		"to": "{{data.to}}", "first": "{{data.to.0.address}}", "missing": "{{data.nope}}", "missingIn": "x{{data.nope}}y",
		"notAPath": "{{ not a path }}", "n": 1.50, "t": true, "nil": null, "arr": [1, "{{type}}"]}`
	ct, err := compileTemplate(&model.WebhookTemplate{Type: model.TemplateCustom, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ct.render(recv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), `{"z":"evt_1","a":`) {
		t.Errorf("key order not kept: %s", out)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]any{
		"z": "evt_1", "a": float64(recv.envelope.CreatedAt), "ts": "2026-11-21T13:25:55.000Z", "subj": nasty,
		"line": "[pass/fail/none] " + nasty, "first": "qa@sandbox.test", "missing": nil, "missingIn": "xy",
		"notAPath": "{{ not a path }}", "n": 1.5, "t": true, "nil": nil,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	if to, ok := got["to"].([]any); !ok || len(to) != 1 {
		t.Errorf("whole placeholder did not keep the array: %#v", got["to"])
	}
	if arr := got["arr"].([]any); arr[1] != model.EventEmailReceived {
		t.Errorf("arr = %v", arr)
	}
	// "{{data.subject}}" inside the subject stays literal (no second pass).
	if !strings.Contains(got["subj"].(string), "{{data.subject}}") {
		t.Error("placeholder text from mail was substituted")
	}
	if !strings.Contains(string(out), `1.50`) {
		t.Errorf("number literal changed: %s", out)
	}
}

func TestCustomTemplateValidation(t *testing.T) {
	tests := []struct {
		name string
		tmpl model.WebhookTemplate
		ok   bool
	}{
		{"plain JSON", model.WebhookTemplate{Type: "custom", Body: `{"a":1}`}, true},
		{"bare placeholder", model.WebhookTemplate{Type: "custom", Body: `{"a": {{data.subject}} }`}, true},
		{"top-level placeholder", model.WebhookTemplate{Type: "custom", Body: `{{data}}`}, true},
		{"not JSON", model.WebhookTemplate{Type: "custom", Body: `{"a": }`}, false},
		{"trailing text", model.WebhookTemplate{Type: "custom", Body: `{"a":1} x`}, false},
		{"two values", model.WebhookTemplate{Type: "custom", Body: `{"a":1} {"b":2}`}, false},
		{"incomplete", model.WebhookTemplate{Type: "custom", Body: `{"a":[1,2`}, false},
		{"empty body", model.WebhookTemplate{Type: "custom"}, false},
		{"too long", model.WebhookTemplate{Type: "custom", Body: `"` + strings.Repeat("x", 9999) + `"`}, false},
		{"at the limit", model.WebhookTemplate{Type: "custom", Body: `"` + strings.Repeat("é", 9998) + `"`}, true},
		{"unknown built-in", model.WebhookTemplate{Type: "markdown"}, false},
		{"no type", model.WebhookTemplate{Body: `{}`}, false},
		{"built-in with body", model.WebhookTemplate{Type: "slack", Body: `{}`}, false},
		{"built-in object with contentType", model.WebhookTemplate{Type: "slack", ContentType: "application/x-slack"}, true},
		{"contentType with newline", model.WebhookTemplate{Type: "slack", ContentType: "a\r\nX-Evil: 1"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileTemplate(&tc.tmpl)
			if (err == nil) != tc.ok {
				t.Errorf("err = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func TestHeaderLimitsKeepNameOrder(t *testing.T) {
	in := map[string]string{"d": "4", "b": "22", "a": "1", "c": "333"}
	got := limitHeaders(in, 3, 2)
	if len(got) != 3 || got["a"] != "1" || got["b"] != "22" || got["c"] != "33" {
		t.Errorf("limitHeaders = %v", got)
	}
	if cutRunes("ééé", 2) != "éé" || cutBytes("ééé", 3) != "é" {
		t.Error("cuts split characters")
	}
}
