package tui

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/webhookrecv"
	"sandview/crypto"
)

// deliver posts a delivery signed with secret (timestamp age old) to the
// receiver and hands what it received to the model, as the program's
// waitDelivery would.
func deliver(t *testing.T, m *Model, secret string, old time.Duration, body string) {
	t.Helper()
	recv := m.hooks.data.recv
	ts := strconv.FormatInt(time.Now().Add(-old).Unix(), 10)
	req, err := http.NewRequest(http.MethodPost, recv.URL(), bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Signature", crypto.SignWebhook(secret, ts, []byte(body)))
	req.Header.Set("X-Service-Timestamp", ts)
	req.Header.Set("X-Service-Event", "email.received")
	req.Header.Set("X-Service-Delivery", "dlv_"+strconv.Itoa(len(m.hooks.data.deliveries)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("receiver answered %d", res.StatusCode)
	}
	send(t, m, waitDelivery(recv.Deliveries())())
}

func TestWebhookReceiverVerifiesDeliveries(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	press(t, m, "l")
	d := m.hooks.data
	if d.recv == nil {
		t.Fatalf("l did not start the receiver: %s", d.recvErr)
	}
	want := `createWebhook  {"url":"` + d.recv.URL() + `","events":["email.received","email.stored","email.deleted"],"template":"default"`
	if !svc.called(want) {
		t.Fatalf("receiver webhook not created as %s: %v", want, svc.calls)
	}
	if !strings.HasPrefix(d.recv.URL(), "http://127.0.0.1:") {
		t.Fatalf("receiver not on loopback: %s", d.recv.URL())
	}
	if h, _ := m.hooks.selected(); h.ID != "whk_new1" {
		t.Fatalf("receiver webhook not selected: %s", h.ID)
	}
	if v := plain(m); !strings.Contains(v, "listening on "+d.recv.URL()) || !strings.Contains(v, "receiver") {
		t.Fatalf("view does not show the receiver:\n%s", v)
	}

	deliver(t, m, "whsec_newsecret1", 0, `{"type":"email.received","data":{"subject":"hello \u001b[2J"}}`)
	deliver(t, m, "whsec_forged", 0, `{"forged":true}`)
	deliver(t, m, "whsec_newsecret1", 400*time.Second, `{"old":true}`)
	got := []webhookrecv.SignatureStatus{d.deliveries[2].signature, d.deliveries[1].signature, d.deliveries[0].signature}
	wantSig := []webhookrecv.SignatureStatus{webhookrecv.SignatureValid, webhookrecv.SignatureInvalid, webhookrecv.SignatureStale}
	for i := range got {
		if got[i] != wantSig[i] {
			t.Fatalf("delivery %d: signature %v, want %v", i, got[i], wantSig[i])
		}
	}
	if d.deliveries[2].event != "email.received" || !strings.Contains(d.deliveries[2].body.text, `"subject": "hello`) {
		t.Fatalf("delivery not recorded: %+v", d.deliveries[2])
	}
	press(t, m, "tab", "tab", "G")
	v := plain(m)
	for _, want := range []string{"Deliveries (3)", "✓ valid", "✗ invalid", "⚠ stale", "signed with the webhook's secret, timestamp fresh", `"subject": "hello`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	assertNoControls(t, v)

	// A second webhook to the same receiver: both secrets verify.
	press(t, m, "l")
	if n := len(d.receiverSecrets()); n != 2 || !svc.called(`createWebhook  {"url":"`+d.recv.URL()) {
		t.Fatalf("second receiver webhook: %d secrets", n)
	}
	deliver(t, m, "whsec_newsecret2", 0, `{"second":true}`)
	if d.deliveries[0].signature != webhookrecv.SignatureValid {
		t.Fatalf("delivery signed by the second webhook: %v", d.deliveries[0].signature)
	}
	// Rotating the receiver's webhook: the new secret verifies, the old one
	// too during the grace period.
	press(t, m, "R", "y")
	deliver(t, m, "whsec_rotated", 0, `{"rotated":true}`)
	deliver(t, m, "whsec_newsecret2", 0, `{"previous":true}`)
	if d.deliveries[1].signature != webhookrecv.SignatureValid || d.deliveries[0].signature != webhookrecv.SignatureValid {
		t.Fatalf("after rotation: %v, %v", d.deliveries[1].signature, d.deliveries[0].signature)
	}

	ch := d.recv.Deliveries()
	if err := d.recv.Close(); err != nil {
		t.Fatal(err)
	}
	send(t, m, waitDelivery(ch)())
	if d.recv != nil || !strings.Contains(plain(m), "The built-in receiver is off") {
		t.Fatal("the receiver's end is not shown")
	}
}

func TestWebhookReceiverRefusedByServer(t *testing.T) {
	m, svc := newWebhookTestModel(t, 120, 40, true)
	svc.hooks.reject = &client.APIError{StatusCode: 400, Message: "url must use https (http is allowed only when the server sets SVC_WEBHOOK_ALLOW_HTTP)"}
	press(t, m, "l")
	d := m.hooks.data
	if d.recv == nil {
		t.Fatal("the receiver should keep listening")
	}
	for _, want := range []string{"the server refused a webhook to the built-in receiver at " + d.recv.URL(), "url must use https", "sandview --local"} {
		if !strings.Contains(d.recvErr, want) {
			t.Errorf("receiver error lacks %q: %s", want, d.recvErr)
		}
	}
	if m.status.level != levelError {
		t.Fatalf("status level %v", m.status.level)
	}
	press(t, m, "tab", "tab")
	if v := plain(m); !strings.Contains(v, "✗ the server refused a webhook") {
		t.Fatalf("deliveries pane lacks the error:\n%s", v)
	}
	if m.hooks.starting {
		t.Fatal("still marked as starting")
	}
}

func TestWebhookDeliveriesPaneKeys(t *testing.T) {
	m, _ := newWebhookTestModel(t, 120, 40, true)
	withDeliveries(t, m)
	p := m.hooks.deliveries
	press(t, m, "tab", "tab", "j")
	if p.cursor != 1 || !strings.Contains(plain(m), "⚠ stale: signed with the webhook's secret, but the timestamp is") {
		t.Fatalf("j: cursor %d\n%s", p.cursor, plain(m))
	}
	// A new delivery keeps the selection on the same one.
	send(t, m, deliveryMsg{d: fixtureDeliveries()[2]})
	if p.cursor != 2 || m.hooks.data.deliveries[p.cursor].id != "dlv_two" {
		t.Fatalf("arrival moved the selection to %d", p.cursor)
	}
	press(t, m, "G")
	if !strings.Contains(plain(m), "✗ invalid: the signature matches none") {
		t.Fatalf("G: %s", plain(m))
	}
	press(t, m, "g", "pgdown")
	if p.scroll == 0 {
		t.Fatal("pgdown did not scroll the body")
	}
	press(t, m, "pgup", "c")
	if len(m.hooks.data.deliveries) != 0 || !strings.Contains(plain(m), "Deliveries (0)") {
		t.Fatal("c did not clear the deliveries")
	}
}
