package tui

import (
	"net/http"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client/webhookrecv"
	"sandview/model"
)

func ptrTime(t time.Time) *time.Time { return &t }

func ptrBool(b bool) *bool { return &b }

// fixtureWebhooks are a global, an inbox and a hostile webhook.
func fixtureWebhooks() []model.Webhook {
	return []model.Webhook{
		{
			ID: "whk_team", URL: "https://hooks.example.com/team", Scope: model.ScopeGlobal, Enabled: true,
			Events: []string{model.EventEmailReceived, model.EventEmailStored, model.EventEmailDeleted}, Secret: "whsec_teamsecret123",
			Template: &model.WebhookTemplate{Type: model.TemplateSlack}, Description: "Team notifications",
			CreatedAt: testNow.Add(-48 * time.Hour), LastDeliveryAt: ptrTime(testNow.Add(-5 * time.Minute)), LastDeliveryStatus: "success",
			Stats: &model.WebhookStats{TotalDeliveries: 12, SuccessfulDeliveries: 11, FailedDeliveries: 1},
		},
		{
			ID: "whk_demo", URL: "https://ci.example.org/mail", Scope: model.ScopeInbox, InboxEmail: demoAddr, Enabled: false,
			Events: []string{model.EventEmailReceived}, Secret: "whsec_demosecret456",
			Template: &model.WebhookTemplate{Type: model.TemplateCustom, Body: `{"text":"{{data.subject}}"}`},
			Filter: &model.FilterConfig{Mode: model.FilterModeAll, RequireAuth: ptrBool(true), Rules: []model.FilterRule{
				{Field: "subject", Operator: model.OpContains, Value: "invoice"},
				{Field: "from.address", Operator: model.OpDomain, Value: "example.com", CaseSensitive: true},
			}},
			CreatedAt: testNow.Add(-3 * time.Hour), LastDeliveryAt: ptrTime(testNow.Add(-2 * time.Hour)), LastDeliveryStatus: "failed",
			Stats: &model.WebhookStats{TotalDeliveries: 6, SuccessfulDeliveries: 1, FailedDeliveries: 5},
		},
		{
			ID: "whk_evil\x1b[2J", URL: "https://evil.test/\x1b]52;c;SGVsbG8=\x07x\u202e", Scope: model.ScopeGlobal, Enabled: true,
			Events: []string{model.EventEmailDeleted}, Description: "\x1b[31mred\r\nline", CreatedAt: testNow.Add(-time.Hour),
		},
	}
}

func fixtureMetrics() model.WebhookMetrics {
	var m model.WebhookMetrics
	m.Webhooks.Global, m.Webhooks.Inbox, m.Webhooks.Enabled, m.Webhooks.Total = 2, 1, 2, 3
	m.Deliveries.Total, m.Deliveries.Successful, m.Deliveries.Failed = 18, 12, 6
	return m
}

// fixtureDeliveries are three deliveries as the receiver hands them over:
// valid, stale and forged.
func fixtureDeliveries() []webhookrecv.Delivery {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Service-Event", "email.received")
	h.Set("X-Service-Delivery", "dlv_one")
	h.Set("X-Service-Timestamp", "1748779190")
	return []webhookrecv.Delivery{
		{ReceivedAt: testNow.Add(-20 * time.Minute), Event: model.EventEmailDeleted, DeliveryID: "dlv_three", Timestamp: "1748778000",
			Age: 2 * time.Second, Signature: webhookrecv.SignatureInvalid, PrettyBody: "{\n  \"forged\": true\n}", Headers: http.Header{}},
		{ReceivedAt: testNow.Add(-10 * time.Minute), Event: model.EventEmailStored, DeliveryID: "dlv_two", Timestamp: "1748778000",
			Age: 400 * time.Second, Signature: webhookrecv.SignatureStale, PrettyBody: "{}", Headers: http.Header{}},
		{ReceivedAt: testNow.Add(-10 * time.Second), Event: model.EventEmailReceived, DeliveryID: "dlv_one", Timestamp: "1748779190",
			Age: time.Second, Signature: webhookrecv.SignatureValid, Headers: h,
			PrettyBody: "{\n  \"id\": \"evt_1\",\n  \"type\": \"email.received\",\n  \"data\": {\n    \"subject\": \"Hi \x1b[2J there\"\n  }\n}"},
	}
}

// newWebhookTestModel is newTestModel with the fixture webhooks on the
// fake service, the webhooks view open and the receiver's channel driven
// by the test (no blocking reads).
func newWebhookTestModel(t testing.TB, width, height int, dark bool) (*Model, *fakeService) {
	t.Helper()
	m, svc := newTestModel(t, width, height, dark)
	for _, h := range fixtureWebhooks() {
		svc.addWebhook(h)
	}
	svc.hooks.metrics = fixtureMetrics()
	m.hooks.wait = func(<-chan webhookrecv.Delivery) tea.Cmd { return nil }
	t.Cleanup(func() {
		if r := m.hooks.data.recv; r != nil {
			_ = r.Close()
		}
	})
	press(t, m, "w")
	return m, svc
}

// withDeliveries puts the fixture deliveries in the view as if a receiver
// on a fixed address had received them.
func withDeliveries(t testing.TB, m *Model) {
	t.Helper()
	d := m.hooks.data
	d.recvURL = "http://127.0.0.1:40123/hook"
	d.recvHooks["whk_team"] = []string{"whsec_teamsecret123"}
	for _, dl := range fixtureDeliveries() {
		send(t, m, deliveryMsg{d: dl})
	}
}
