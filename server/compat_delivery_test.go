package server_test

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sandview/client/webhookrecv"
	"sandview/crypto"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// referenceDir holds traffic recorded from a reference deployment.
const referenceDir = "../client/testdata/reference-deployment/"

// recordedDelivery is one line of webhook-deliveries.jsonl.
type recordedDelivery struct {
	Headers [][2]string `json:"headers"`
	Body    string      `json:"body"`
}

func (d recordedDelivery) header() http.Header {
	h := http.Header{}
	for _, kv := range d.Headers {
		h.Add(kv[0], kv[1])
	}
	return h
}

// loadRecorded returns the recorded webhook's secret and its deliveries by
// event type.
func loadRecorded(t *testing.T) (string, map[string]recordedDelivery) {
	t.Helper()
	data, err := os.ReadFile(referenceDir + "webhook-create.json")
	if err != nil {
		t.Fatal(err)
	}
	var hook model.Webhook
	if err := json.Unmarshal(data, &hook); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(referenceDir + "webhook-deliveries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byEvent := map[string]recordedDelivery{}
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var d recordedDelivery
		if err := json.Unmarshal(lines.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		byEvent[d.header().Get("X-Vault-Event")] = d
	}
	if err := lines.Err(); err != nil || len(byEvent) != 3 {
		t.Fatalf("recorded deliveries: %d event types, %v", len(byEvent), err)
	}
	return hook.Secret, byEvent
}

// verifyAsSDKs checks a delivery as the official SDKs' documentation tells
// receivers to: hex HMAC-SHA256 of "<X-<word>-Timestamp>.<raw body>" keyed
// with the secret string exactly as the API returned it, compared with
// X-<word>-Signature after "sha256=". It is written from that description,
// not with the crypto package, so that it checks the scheme independently.
func verifyAsSDKs(h http.Header, body []byte, secret, word string) error {
	ts := h.Get("X-" + word + "-Timestamp")
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return fmt.Errorf("timestamp %q: %w", ts, err)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	if got := h.Get("X-" + word + "-Signature"); !hmac.Equal([]byte(got), []byte(want)) {
		return fmt.Errorf("signature %q, want %q", got, want)
	}
	return nil
}

// serviceHeaders are the names of the headers the service sets on a
// delivery (transport headers such as Host and Accept-Encoding aside).
func serviceHeaders(h http.Header) []string {
	var names []string
	for name := range h {
		if strings.HasPrefix(name, "X-") || name == "User-Agent" || name == "Content-Type" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// jsonKeys are the property names of a JSON object, sorted.
func jsonKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatalf("not an object: %s", data)
	}
	return slices.Sorted(maps.Keys(obj))
}

// TestWebhookDeliveriesByProfile: deliveries received by a real local
// receiver carry the profile's headers and are signed as the profile says;
// under the reference profile they match the recorded deliveries of a
// reference deployment in headers, envelope and data shape, and verify the
// way the official SDKs verify.
func TestWebhookDeliveriesByProfile(t *testing.T) {
	recordedSecret, recorded := loadRecorded(t)
	for event, d := range recorded {
		if err := verifyAsSDKs(d.header(), []byte(d.Body), recordedSecret, "Vault"); err != nil {
			t.Fatalf("the verifier refuses the recorded %s delivery: %v", event, err)
		}
		if verifyAsSDKs(d.header(), []byte(d.Body), strings.TrimPrefix(recordedSecret, "whsec_"), "Vault") == nil {
			t.Fatalf("the recorded %s delivery verifies without the whsec_ prefix in the key", event)
		}
	}
	inEveryProfile(t, func(t *testing.T, p server.Compat, srv *server.Server, a *api, in model.Inbox) {
		word, userAgent, idPrefix, testStatus := "Service", "Service-Webhook/1.0", "msg_", http.StatusOK
		if p == server.CompatReference {
			word, userAgent, idPrefix, testStatus = "Vault", "VaultSandbox-Webhook/1.0", "", http.StatusCreated
		}
		recv := listen(t)
		var hook model.Webhook
		a.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{
			URL: recv.URL(), Events: []string{model.EventEmailReceived, model.EventEmailStored, model.EventEmailDeleted},
		}, &hook)
		recv.SetSecrets(hook.Secret)

		check := func(d webhookrecv.Delivery) model.Event {
			t.Helper()
			if err := verifyAsSDKs(d.Headers, d.Body, hook.Secret, word); err != nil {
				t.Errorf("%s delivery: %v", d.Event, err)
			}
			ts, sig := d.Headers.Get("X-"+word+"-Timestamp"), d.Headers.Get("X-"+word+"-Signature")
			if !crypto.VerifyWebhookSignature(sig, ts, d.Body, hook.Secret) || d.Signature != webhookrecv.SignatureValid {
				t.Errorf("%s delivery: the contract's verification refuses it (%v)", d.Event, d.Signature)
			}
			if got := d.Headers.Get("User-Agent"); got != userAgent {
				t.Errorf("%s delivery: User-Agent %q, want %q", d.Event, got, userAgent)
			}
			if !strings.HasPrefix(d.Headers.Get("X-"+word+"-Delivery"), "dlv_") || d.Headers.Get("X-"+word+"-Event") != d.Event {
				t.Errorf("%s delivery: headers %v", d.Event, d.Headers)
			}
			var ev model.Event
			if err := json.Unmarshal(d.Body, &ev); err != nil || ev.Type != d.Event || !strings.HasPrefix(ev.ID, "evt_") {
				t.Fatalf("%s delivery: envelope %s: %v", d.Event, d.Body, err)
			}
			return ev
		}

		servertest.MustSend(t, srv, in.EmailAddress, multipartMessage(in.EmailAddress))
		got := map[string]webhookrecv.Delivery{}
		for len(got) < 2 {
			d := nextDelivery(t, recv)
			got[d.Event] = d
		}
		emailID := a.Emails(in.EmailAddress, false)[0].ID
		a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+in.EmailAddress+"/emails/"+emailID, nil, nil)
		d := nextDelivery(t, recv)
		got[d.Event] = d

		for event, d := range got {
			ev := check(d)
			var data struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(ev.Data, &data); err != nil || data.ID != idPrefix+emailID {
				t.Errorf("%s data.id %q, want %q", event, data.ID, idPrefix+emailID)
			}
			if p != server.CompatReference {
				continue
			}
			ref := recorded[event]
			if want, have := serviceHeaders(ref.header()), serviceHeaders(d.Headers); !slices.Equal(want, have) {
				t.Errorf("%s headers %v, the reference deployment sends %v", event, have, want)
			}
			var refEnvelope model.Event
			if err := json.Unmarshal([]byte(ref.Body), &refEnvelope); err != nil {
				t.Fatal(err)
			}
			if want, have := jsonKeys(t, []byte(ref.Body)), jsonKeys(t, d.Body); !slices.Equal(want, have) {
				t.Errorf("%s envelope %v, the reference deployment sends %v", event, have, want)
			}
			// This mail has a Cc the recorded one lacks; cc is optional.
			have := slices.DeleteFunc(jsonKeys(t, ev.Data), func(k string) bool { return k == "cc" })
			if want := jsonKeys(t, refEnvelope.Data); !slices.Equal(want, have) {
				t.Errorf("%s data %v, the reference deployment sends %v", event, have, want)
			}
		}

		// The test operation is signed and labelled like every delivery.
		a.Expect(testStatus, "POST", "/api/webhooks/"+hook.ID+"/test", nil, nil)
		check(nextDelivery(t, recv))
	})
}
