package webhooks

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/webhookrecv"
	"sandview/crypto"
	"sandview/model"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// deliver posts a delivery signed with secret (timestamp age old) to the
// receiver and hands what it received to the model, as the program's
// waitDelivery would.
func deliver(t *testing.T, h *harness, secret string, old time.Duration, body string) {
	t.Helper()
	recv := h.s.state.recv
	ts := strconv.FormatInt(time.Now().Add(-old).Unix(), 10)
	req, err := http.NewRequest(http.MethodPost, recv.URL(), bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Signature", crypto.SignWebhook(secret, ts, []byte(body)))
	req.Header.Set("X-Service-Timestamp", ts)
	req.Header.Set("X-Service-Event", "email.received")
	req.Header.Set("X-Service-Delivery", "dlv_"+strconv.Itoa(len(h.s.state.deliveries)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("receiver answered %d", res.StatusCode)
	}
	h.Send(waitDelivery(recv.Deliveries())())
}

func TestWebhookReceiverVerifiesDeliveries(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.Press("l")
	d := h.s.state
	if d.recv == nil {
		t.Fatalf("l did not start the receiver: %s", d.recvErr)
	}
	want := `createWebhook  {"url":"` + d.recv.URL() + `","events":["email.received","email.stored","email.deleted"],"template":"default"`
	if !h.svc.Called(want) {
		t.Fatalf("receiver webhook not created as %s: %v", want, h.svc.Calls())
	}
	if !strings.HasPrefix(d.recv.URL(), "http://127.0.0.1:") {
		t.Fatalf("receiver not on loopback: %s", d.recv.URL())
	}
	if w, _ := h.s.list.selected(); w.ID != "whk_new1" {
		t.Fatalf("receiver webhook not selected: %s", w.ID)
	}
	if v := h.shown(); !strings.Contains(v, "listening on "+d.recv.URL()) || !strings.Contains(v, "receiver") {
		t.Fatalf("view does not show the receiver:\n%s", v)
	}

	deliver(t, h, "whsec_newsecret1", 0, `{"type":"email.received","data":{"subject":"hello \u001b[2J"}}`)
	deliver(t, h, "whsec_forged", 0, `{"forged":true}`)
	deliver(t, h, "whsec_newsecret1", 400*time.Second, `{"old":true}`)
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
	h.Press("tab", "tab", "G")
	v := h.shown()
	for _, want := range []string{"Deliveries (3)", "✓ valid", "✗ invalid", "⚠ stale", "signed with the webhook's secret, timestamp fresh", `"subject": "hello`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	tuitest.AssertNoControls(t, v)

	// A second webhook to the same receiver: both secrets verify.
	h.Press("l")
	if n := len(d.receiverSecrets()); n != 2 || !h.svc.Called(`createWebhook  {"url":"`+d.recv.URL()) {
		t.Fatalf("second receiver webhook: %d secrets", n)
	}
	deliver(t, h, "whsec_newsecret2", 0, `{"second":true}`)
	if d.deliveries[0].signature != webhookrecv.SignatureValid {
		t.Fatalf("delivery signed by the second webhook: %v", d.deliveries[0].signature)
	}
	// Rotating the receiver's webhook: the new secret verifies, the old one
	// too during the grace period.
	h.Press("R", "y")
	deliver(t, h, "whsec_rotated", 0, `{"rotated":true}`)
	deliver(t, h, "whsec_newsecret2", 0, `{"previous":true}`)
	if d.deliveries[1].signature != webhookrecv.SignatureValid || d.deliveries[0].signature != webhookrecv.SignatureValid {
		t.Fatalf("after rotation: %v, %v", d.deliveries[1].signature, d.deliveries[0].signature)
	}

	ch := d.recv.Deliveries()
	if err := d.recv.Close(); err != nil {
		t.Fatal(err)
	}
	h.Send(waitDelivery(ch)())
	if d.recv != nil || !strings.Contains(h.shown(), "The built-in receiver is off") {
		t.Fatal("the receiver's end is not shown")
	}
}

func TestWebhookReceiverRefusedByServer(t *testing.T) {
	h := newHarness(t, 120, 37)
	h.svc.RejectWebhooks(&client.InvalidWebhookError{Problems: []client.Problem{{Field: "url", Text: "url must use https (http is allowed only when the server sets SVC_WEBHOOK_ALLOW_HTTP)"}}})
	h.Press("l")
	d := h.s.state
	if d.recv == nil {
		t.Fatal("the receiver should keep listening")
	}
	for _, want := range []string{"the server refused a webhook to the built-in receiver at " + d.recv.URL(), "url must use https", "sandview --local"} {
		if !strings.Contains(d.recvErr, want) {
			t.Errorf("receiver error lacks %q: %s", want, d.recvErr)
		}
	}
	if h.ctx.Status().Level != ui.LevelError {
		t.Fatalf("status level %v", h.ctx.Status().Level)
	}
	h.Press("tab", "tab")
	if v := h.shown(); !strings.Contains(v, "✗ the server refused a webhook") {
		t.Fatalf("deliveries pane lacks the error:\n%s", v)
	}
	if h.s.starting {
		t.Fatal("still marked as starting")
	}
}

func TestWebhookDeliveriesPaneKeys(t *testing.T) {
	h := newHarness(t, 120, 37)
	withDeliveries(h)
	p := h.s.deliveries
	h.Press("tab", "tab", "j")
	if p.list.Cursor() != 1 || !strings.Contains(h.shown(), "⚠ stale: signed with the webhook's secret, but the timestamp is") {
		t.Fatalf("j: cursor %d\n%s", p.list.Cursor(), h.shown())
	}
	// A new delivery keeps the selection on the same one.
	h.Send(DeliveryMsg{Delivery: tuitest.Deliveries()[2]})
	if p.list.Cursor() != 2 || h.s.state.deliveries[p.list.Cursor()].id != "dlv_two" {
		t.Fatalf("arrival moved the selection to %d", p.list.Cursor())
	}
	h.Press("G")
	if !strings.Contains(h.shown(), "✗ invalid: the signature matches none") {
		t.Fatalf("G: %s", h.shown())
	}
	h.Press("g", "pgdown")
	if p.body.YOffset() == 0 {
		t.Fatal("pgdown did not scroll the body")
	}
	h.Press("pgup", "c")
	if len(h.s.state.deliveries) != 0 || !strings.Contains(h.shown(), "Deliveries (0)") {
		t.Fatal("c did not clear the deliveries")
	}
}

// TestReceiverClearsWhatAnEarlierRunLeft starts the receiver with two
// webhooks of an earlier run on the server: the one pointing at a port
// nothing listens on is deleted first; one whose receiver still listens
// (another sandview running) stays. Close deletes the new receiver's
// webhook.
func TestReceiverClearsWhatAnEarlierRunLeft(t *testing.T) {
	h := newHarness(t, 120, 37)
	dead, err := webhookrecv.Listen(context.Background(), "127.0.0.1:0", webhookrecv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	deadURL := dead.URL()
	dead.Close()
	alive, err := webhookrecv.Listen(context.Background(), "127.0.0.1:0", webhookrecv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer alive.Close()
	h.svc.AddWebhook(model.Webhook{ID: "whk_left", URL: deadURL, Scope: model.ScopeGlobal, Description: webhookrecv.Description})
	h.svc.AddWebhook(model.Webhook{ID: "whk_other", URL: alive.URL(), Scope: model.ScopeGlobal, Description: webhookrecv.Description})
	h.Press("l")
	if !h.svc.Called("deleteWebhook  whk_left") || h.svc.Called("deleteWebhook  whk_other") {
		t.Fatalf("left-behind webhooks: %v", h.svc.Calls())
	}
	if err := h.s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !h.svc.Called("deleteWebhook  whk_new1") {
		t.Fatalf("Close did not delete the receiver's webhook: %v", h.svc.Calls())
	}
}
