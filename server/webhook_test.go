package server_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"sandview/client/webhookrecv"
	"sandview/model"
	"sandview/server"
	"sandview/server/emailauth"
	"sandview/server/servertest"
	"sandview/server/webhook"
)

// loopbackWebhooks lets webhooks point at a receiver on loopback over HTTP.
func loopbackWebhooks(cfg *server.Config) {
	w := webhook.DefaultConfig()
	w.AllowLoopbackHTTP = true
	cfg.Webhooks = &w
}

// listen starts a webhook receiver that verifies with the webhook's secret.
func listen(t testing.TB) *webhookrecv.Receiver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r, err := webhookrecv.Listen(ctx, "127.0.0.1:0", webhookrecv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func nextDelivery(t testing.TB, r *webhookrecv.Receiver) webhookrecv.Delivery {
	t.Helper()
	select {
	case d := <-r.Deliveries():
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook delivery within 10 s")
		return webhookrecv.Delivery{}
	}
}

// TestWebhookEndToEnd: a mail accepted over SMTP reaches a global webhook as
// signed email.received and email.stored deliveries, and deleting it sends
// email.deleted (reason manual).
func TestWebhookEndToEnd(t *testing.T) {
	srv, a := servertest.StartAPI(t, loopbackWebhooks)
	in := a.CreatePlain(nil)
	recv := listen(t)

	var hook model.Webhook
	a.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{
		URL: recv.URL(), Events: []string{model.EventEmailReceived, model.EventEmailStored, model.EventEmailDeleted},
	}, &hook)
	recv.SetSecrets(hook.Secret)

	var info model.ServerInfo
	a.Expect(http.StatusOK, "GET", "/api/server-info", nil, &info)
	if !info.WebhookEnabled {
		t.Fatal("server-info says webhooks are off")
	}

	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "webhook-e2e"))
	got := map[string]webhookrecv.Delivery{}
	for len(got) < 2 {
		d := nextDelivery(t, recv)
		if d.Signature != webhookrecv.SignatureValid {
			t.Fatalf("%s delivery signature %v, want valid", d.Event, d.Signature)
		}
		got[d.Event] = d
	}
	var ev model.Event
	if err := json.Unmarshal(got[model.EventEmailReceived].Body, &ev); err != nil {
		t.Fatal(err)
	}
	var data model.EmailReceivedData
	if err := json.Unmarshal(ev.Data, &data); err != nil {
		t.Fatal(err)
	}
	if data.Subject != "webhook-e2e" || data.InboxEmail != in.EmailAddress || data.From.Address != "sender@example.org" {
		t.Fatalf("email.received data = %+v", data)
	}
	if _, ok := got[model.EventEmailStored]; !ok {
		t.Fatal("no email.stored delivery")
	}

	emails := a.Emails(in.EmailAddress, false)
	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+in.EmailAddress+"/emails/"+emails[0].ID, nil, nil)
	d := nextDelivery(t, recv)
	var deleted struct {
		Data model.EmailDeletedData `json:"data"`
	}
	if err := json.Unmarshal(d.Body, &deleted); err != nil {
		t.Fatal(err)
	}
	if d.Event != model.EventEmailDeleted || deleted.Data.Reason != model.DeleteReasonManual {
		t.Fatalf("got %s %+v, want email.deleted reason manual", d.Event, deleted.Data)
	}
}

// TestInboxWebhooksGoWithTheInbox: deleting an inbox removes its webhooks.
func TestInboxWebhooksGoWithTheInbox(t *testing.T) {
	_, a := servertest.StartAPI(t, loopbackWebhooks)
	in := a.CreatePlain(nil)
	path := "/api/inboxes/" + in.EmailAddress + "/webhooks"
	a.Expect(http.StatusCreated, "POST", path, model.CreateWebhookRequest{
		URL: "http://127.0.0.1:9/hook", Events: []string{model.EventEmailReceived},
	}, nil)
	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+in.EmailAddress, nil, nil)
	a.ExpectError(http.StatusNotFound, "GET", path, nil, in.EmailAddress)
	in = a.CreatePlain(map[string]any{"emailAddress": in.EmailAddress})
	var list model.WebhookList
	a.Expect(http.StatusOK, "GET", path, nil, &list)
	if list.Total != 0 {
		t.Fatalf("a re-created inbox inherited %d webhooks", list.Total)
	}
}

// BenchmarkWebhookLatency measures SMTP accepted (250) → email.received
// delivered to a local receiver.
func BenchmarkWebhookLatency(b *testing.B) {
	srv, a := servertest.StartAPI(b, loopbackWebhooks, func(cfg *server.Config) { cfg.MaxEmailsPerInbox = 1 << 30 })
	in := a.CreatePlain(nil)
	recv := listen(b)
	a.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{
		URL: recv.URL(), Events: []string{model.EventEmailReceived},
	}, nil)
	measureLatency(b, srv, in.EmailAddress, "send-to-webhook-p50-ms", func() time.Time {
		return nextDelivery(b, recv).ReceivedAt
	})
}

// flakyKeyResolver is authResolver's DNS whose TXT lookup of one name
// fails for a while (a temporary error: temperror for a DKIM key).
type flakyKeyResolver struct {
	emailauth.StaticResolver
	flaky string
}

func (r flakyKeyResolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	if strings.EqualFold(strings.TrimSuffix(name, "."), r.flaky) {
		return nil, &net.DNSError{Err: "server misbehaving", Name: name, IsTemporary: true}
	}
	return r.StaticResolver.LookupTXT(ctx, name)
}

// TestWebhookAuthSummary: email.received carries auth as {spf, dkim,
// dmarc} result strings read off the checks list, DKIM as the verdict reads
// it: a mail whose first signature is inconclusive (temperror) and whose
// second fails says dkim "fail" (the deciding signature), not the first
// signature's temperror, and its verdict is fail too.
func TestWebhookAuthSummary(t *testing.T) {
	resolver, _ := authResolver(t)
	dns := flakyKeyResolver{StaticResolver: resolver, flaky: "flaky._domainkey.example.org"}
	srv, a := servertest.StartAPI(t, loopbackWebhooks, func(cfg *server.Config) { cfg.Resolver = dns })
	in := a.CreatePlain(nil)
	recv := listen(t)
	var hook model.Webhook
	a.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{
		URL: recv.URL(), Events: []string{model.EventEmailReceived},
	}, &hook)
	recv.SetSecrets(hook.Secret)

	_, other := authResolver(t) // not the key published for "other": fail
	msg := signMessage(t, other, "other", servertest.SimpleMessage(in.EmailAddress, "two signatures"))
	msg = signMessage(t, other, "flaky", msg) // on top: the first signature
	if err := servertest.SendMail(srv.SMTPAddr(), "bounce@example.org", []string{in.EmailAddress}, msg); err != nil {
		t.Fatal(err)
	}
	d := nextDelivery(t, recv)
	var ev struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		t.Fatal(err)
	}
	if got, want := string(ev.Data["auth"]), `{"spf":"pass","dkim":"fail","dmarc":"pass"}`; got != want {
		t.Fatalf("email.received auth = %s, want %s", got, want)
	}
	_, parsed := servertest.DecodePlain(t, a.Emails(in.EmailAddress, true)[0])
	if dkim := parsed.AuthResults.DKIM; len(dkim) != 2 || dkim[0].Result != model.ResultTemperror || dkim[1].Result != model.ResultFail {
		t.Fatalf("DKIM = %+v, want temperror then fail", dkim)
	}
	if v := parsed.AuthResults.Verdict(); v != model.VerdictFailed {
		t.Fatalf("verdict %s, want fail (as the summary's dkim)", v.Word())
	}
}

// TestWebhookRequireAuthFollowsTheVerdict: a webhook with requireAuth
// fires for mail whose authentication verdict is pass and not for mail
// whose verdict is fail, over real SMTP (the core hands the verdict to
// the webhook engine).
func TestWebhookRequireAuthFollowsTheVerdict(t *testing.T) {
	resolver, key := authResolver(t)
	srv, a := servertest.StartAPI(t, loopbackWebhooks, func(cfg *server.Config) { cfg.Resolver = resolver })
	in := a.CreatePlain(nil)
	recv := listen(t)
	required := true
	var hook model.Webhook
	a.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{
		URL: recv.URL(), Events: []string{model.EventEmailReceived},
		Filter: &model.FilterConfig{Mode: model.FilterModeAll, Rules: []model.FilterRule{}, RequireAuth: &required},
	}, &hook)
	recv.SetSecrets(hook.Secret)

	_, other := authResolver(t) // not the published key: DKIM fails
	for _, m := range []struct {
		selector string
		key      ed25519.PrivateKey
		subject  string
	}{{"mail", other, "failing"}, {"mail", key, "passing"}} {
		msg := signMessage(t, m.key, m.selector, servertest.SimpleMessage(in.EmailAddress, m.subject))
		if err := servertest.SendMail(srv.SMTPAddr(), "bounce@example.org", []string{in.EmailAddress}, msg); err != nil {
			t.Fatal(err)
		}
	}
	verdicts := map[string]model.AuthVerdict{}
	for _, raw := range a.Emails(in.EmailAddress, true) {
		meta, e := servertest.DecodePlain(t, raw)
		verdicts[meta.Subject] = e.AuthResults.Verdict()
	}
	if verdicts["failing"] != model.VerdictFailed || verdicts["passing"] != model.VerdictPassed {
		t.Fatalf("verdicts %v: want failing fail and passing pass", verdicts)
	}
	var ev struct {
		Data struct {
			Subject string `json:"subject"`
		} `json:"data"`
	}
	if err := json.Unmarshal(nextDelivery(t, recv).Body, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Data.Subject != "passing" {
		t.Fatalf("the first delivery is for %q, want only the passing mail's", ev.Data.Subject)
	}
}
