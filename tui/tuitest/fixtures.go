package tuitest

import (
	"net/http"
	"time"

	"sandview/client/webhookrecv"
	"sandview/model"
)

// Now is the fixed time of every test.
func Now() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }

// The fixture inboxes: an encrypted one holding the fixture emails, a
// plain empty one, and an expired one.
const (
	DemoAddr  = "demo@sandbox.test"
	PlainAddr = "plain@sandbox.test"
	OldAddr   = "old@sandbox.test"
)

// Inboxes returns the fixture inboxes.
func Inboxes() []model.Inbox {
	return []model.Inbox{
		{EmailAddress: DemoAddr, ExpiresAt: Now().Add(59*time.Minute + 12*time.Second), Encrypted: true, EmailAuth: true},
		{EmailAddress: PlainAddr, ExpiresAt: Now().Add(50 * time.Hour)},
		{EmailAddress: OldAddr, ExpiresAt: Now().Add(-time.Minute), Encrypted: true},
	}
}

// PassingAuth are authentication results where SPF, DMARC and reverse DNS
// pass and one of two DKIM signatures fails.
func PassingAuth() model.AuthResults {
	return model.AuthResults{
		SPF:        &model.SPFResult{Result: "pass", Domain: "example.com", IP: "192.0.2.10"},
		DKIM:       []model.DKIMResult{{Result: "pass", Domain: "example.com", Selector: "s1"}, {Result: "fail", Domain: "mailer.test", Selector: "k2"}},
		DMARC:      &model.DMARCResult{Result: "pass", Policy: "reject", Aligned: true, Domain: "example.com"},
		ReverseDNS: &model.ReverseDNSResult{Result: "pass", IP: "192.0.2.10", Hostname: "mail.example.com"},
	}
}

// HostileSubject carries a screen clear, an OSC 52 clipboard write, an OSC
// 8 hyperlink, a bidi override, a carriage return and an 8-bit CSI.
const HostileSubject = "\x1b[2JInvoice \x1b]52;c;SGVsbG8=\x07\x1b]8;;http://evil.test\x1b\\click\x1b]8;;\x1b\\ \u202eexe.fdp\r\x9b31mdue"

// Emails returns the emails of the demo inbox, newest first: a friendly
// one with content, a hostile one, one that cannot be opened and an old
// read one without content.
func Emails() []model.Email {
	return []model.Email{
		{
			ID: "e1", From: `"Alice Example" <alice@example.com>`, To: []string{DemoAddr}, Subject: "Welcome to the sandbox",
			ReceivedAt: Now().Add(-5 * time.Minute), HasContent: true,
			Text:        "Hello!\n\nThis is the text part of a friendly email. It is long enough to wrap in narrow panes so the wrapping shows in the golden files.\n\nBye",
			HTML:        "<p>Hello <b>HTML</b> world</p><p><a href=\"https://example.com/x\">link</a></p>",
			Headers:     map[string]string{"From": "alice@example.com", "Subject": "Welcome to the sandbox", "X-Mailer": "test", "Date": "Sun, 1 Jun 2025 11:55:00 +0000"},
			Links:       []string{"https://example.com/welcome", "mailto:alice@example.com", "javascript:alert(1)"},
			Attachments: []model.Attachment{{Filename: "../../etc/report.pdf", ContentType: "application/pdf", Size: 2048, Content: []byte("%PDF-1.4")}},
			AuthResults: PassingAuth(),
		},
		{
			ID: "e2", From: "evil\r\n\x1b[31m<attacker@evil.test>", To: []string{DemoAddr}, Subject: HostileSubject,
			ReceivedAt: Now().Add(-2 * time.Hour), HasContent: true,
			Text:    "pwned \x1b]52;c;cm0gLXJmIC8=\x07 body \x9b2J end \u202e",
			Headers: map[string]string{"X-Evil\x1b[2J": "v\x1b]8;;http://x\x07al"},
			Links:   []string{"https://evil.test/\x1b[2J"},
			AuthResults: model.AuthResults{
				SPF:   &model.SPFResult{Result: "softfail", Domain: "evil.test", Details: "not permitted"},
				DKIM:  []model.DKIMResult{{Result: "none"}},
				DMARC: &model.DMARCResult{Result: "fail", Policy: "quarantine", Domain: "evil.test"},
			},
		},
		{ID: "e3", From: "unknown", Subject: "", ReceivedAt: Now().Add(-26 * time.Hour), Problem: "decryption failed"},
		{ID: "e4", From: "bob@example.org", To: []string{DemoAddr}, Subject: "Read and old", IsRead: true, ReceivedAt: Now().Add(-40 * 24 * time.Hour)},
	}
}

// RawE1 is the raw source of the first fixture email: repeated and
// folded headers, an encoded word, and an escape in the body.
func RawE1() []byte {
	return []byte("Received: from mx.example.com (mx.example.com [192.0.2.10])\r\n\tby sandbox.test with ESMTP id 42;\r\n\tSun, 1 Jun 2025 11:55:01 +0000\r\n" +
		"Received: from c.example by d.example with ESMTP id 41; Sun, 1 Jun 2025 11:55:00 +0000\r\n" +
		"From: \"Alice Example\" <alice@example.com>\r\nTo: demo@sandbox.test\r\n" +
		"Cc: =?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <juergen@example.de>\r\nReply-To: help@example.com\r\n" +
		"Subject: Welcome\r\n to the sandbox\r\nDate: Sun, 1 Jun 2025 11:55:00 +0000\r\nX-Mailer: test\r\n" +
		"\r\nHello \x1b[2J raw\r\n")
}

func ptrTime(t time.Time) *time.Time { return &t }

func ptrBool(b bool) *bool { return &b }

// Webhooks returns a global, an inbox and a hostile webhook.
func Webhooks() []model.Webhook {
	return []model.Webhook{
		{
			ID: "whk_team", URL: "https://hooks.example.com/team", Scope: model.ScopeGlobal, Enabled: true,
			Events: []string{model.EventEmailReceived, model.EventEmailStored, model.EventEmailDeleted}, Secret: "whsec_teamsecret123",
			Template: &model.WebhookTemplate{Type: model.TemplateSlack}, Description: "Team notifications",
			CreatedAt: Now().Add(-48 * time.Hour), LastDeliveryAt: ptrTime(Now().Add(-5 * time.Minute)), LastDeliveryStatus: "success",
			Stats: &model.WebhookStats{TotalDeliveries: 12, SuccessfulDeliveries: 11, FailedDeliveries: 1},
		},
		{
			ID: "whk_demo", URL: "https://ci.example.org/mail", Scope: model.ScopeInbox, InboxEmail: DemoAddr, Enabled: false,
			Events: []string{model.EventEmailReceived}, Secret: "whsec_demosecret456",
			Template: &model.WebhookTemplate{Type: model.TemplateCustom, Body: `{"text":"{{data.subject}}"}`},
			Filter: &model.FilterConfig{Mode: model.FilterModeAll, RequireAuth: ptrBool(true), Rules: []model.FilterRule{
				{Field: "subject", Operator: model.OpContains, Value: "invoice"},
				{Field: "from.address", Operator: model.OpDomain, Value: "example.com", CaseSensitive: true},
			}},
			CreatedAt: Now().Add(-3 * time.Hour), LastDeliveryAt: ptrTime(Now().Add(-2 * time.Hour)), LastDeliveryStatus: "failed",
			Stats: &model.WebhookStats{TotalDeliveries: 6, SuccessfulDeliveries: 1, FailedDeliveries: 5},
		},
		{
			ID: "whk_evil\x1b[2J", URL: "https://evil.test/\x1b]52;c;SGVsbG8=\x07x\u202e", Scope: model.ScopeGlobal, Enabled: true,
			Events: []string{model.EventEmailDeleted}, Description: "\x1b[31mred\r\nline", CreatedAt: Now().Add(-time.Hour),
		},
	}
}

// Metrics returns the webhook metrics matching Webhooks.
func Metrics() model.WebhookMetrics {
	var m model.WebhookMetrics
	m.Webhooks.Global, m.Webhooks.Inbox, m.Webhooks.Enabled, m.Webhooks.Total = 2, 1, 2, 3
	m.Deliveries.Total, m.Deliveries.Successful, m.Deliveries.Failed = 18, 12, 6
	return m
}

// Deliveries are three deliveries as the receiver hands them over, oldest
// first: forged, stale and valid.
func Deliveries() []webhookrecv.Delivery {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Service-Event", "email.received")
	h.Set("X-Service-Delivery", "dlv_one")
	h.Set("X-Service-Timestamp", "1748779190")
	return []webhookrecv.Delivery{
		{ReceivedAt: Now().Add(-20 * time.Minute), Event: model.EventEmailDeleted, DeliveryID: "dlv_three", Timestamp: "1748778000",
			Age: 2 * time.Second, Signature: webhookrecv.SignatureInvalid, PrettyBody: "{\n  \"forged\": true\n}", Headers: http.Header{}},
		{ReceivedAt: Now().Add(-10 * time.Minute), Event: model.EventEmailStored, DeliveryID: "dlv_two", Timestamp: "1748778000",
			Age: 400 * time.Second, Signature: webhookrecv.SignatureStale, PrettyBody: "{}", Headers: http.Header{}},
		{ReceivedAt: Now().Add(-10 * time.Second), Event: model.EventEmailReceived, DeliveryID: "dlv_one", Timestamp: "1748779190",
			Age: time.Second, Signature: webhookrecv.SignatureValid, Headers: h,
			PrettyBody: "{\n  \"id\": \"evt_1\",\n  \"type\": \"email.received\",\n  \"data\": {\n    \"subject\": \"Hi \x1b[2J there\"\n  }\n}"},
	}
}
