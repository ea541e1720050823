package webhookrecv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sandview/crypto"
)

const fixtureDir = "../testdata/reference-deployment"

type recorded struct {
	Headers [][2]string `json:"headers"`
	Body    string      `json:"body"`
}

func loadFixtures(t *testing.T) (string, []recorded) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtureDir, "webhook-create.json"))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	var created struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		t.Fatalf("decode webhook-create.json: %v", err)
	}
	f, err := os.Open(filepath.Join(fixtureDir, "webhook-deliveries.jsonl"))
	if err != nil {
		t.Fatalf("open deliveries: %v", err)
	}
	defer f.Close()
	var out []recorded
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r recorded
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("decode delivery line: %v", err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read deliveries: %v", err)
	}
	if len(out) != 3 {
		t.Fatalf("want 3 recorded deliveries, got %d", len(out))
	}
	return created.Secret, out
}

func (r recorded) header() http.Header {
	h := http.Header{}
	for _, kv := range r.Headers {
		h.Add(kv[0], kv[1])
	}
	return h
}

func TestVerifyRecordedDeliveries(t *testing.T) {
	secret, deliveries := loadFixtures(t)
	wantEvents := []string{"email.received", "email.stored", "email.deleted"}
	for i, d := range deliveries {
		h := d.header()
		ts, err := strconv.ParseInt(h.Get("X-Vault-Timestamp"), 10, 64)
		if err != nil {
			t.Fatalf("delivery %d: timestamp: %v", i, err)
		}
		now := time.Now()
		status, event, id, age := Verify(h, []byte(d.Body), []string{secret}, 0, now)
		if status != SignatureValid {
			t.Errorf("delivery %d: staleness off: got %v, want valid", i, status)
		}
		if event != wantEvents[i] || !strings.HasPrefix(id, "dlv_") {
			t.Errorf("delivery %d: event %q id %q", i, event, id)
		}
		if want := now.Sub(time.Unix(ts, 0)); age != want {
			t.Errorf("delivery %d: age %v, want %v", i, age, want)
		}
		if status, _, _, _ := Verify(h, []byte(d.Body), []string{secret}, DefaultTolerance, now); status != SignatureStale {
			t.Errorf("delivery %d: staleness on: got %v, want stale", i, status)
		}
		// At the recorded time it is fresh.
		if status, _, _, _ := Verify(h, []byte(d.Body), []string{secret}, DefaultTolerance, time.Unix(ts+2, 0)); status != SignatureValid {
			t.Errorf("delivery %d: at record time: got %v, want valid", i, status)
		}
		if status, _, _, _ := Verify(h, []byte(d.Body+" "), []string{secret}, 0, now); status != SignatureInvalid {
			t.Errorf("delivery %d: tampered body: got %v, want invalid", i, status)
		}
		if status, _, _, _ := Verify(h, []byte(d.Body), []string{"whsec_other", secret}, 0, now); status != SignatureValid {
			t.Errorf("delivery %d: second secret: got %v, want valid", i, status)
		}
		if status, _, _, _ := Verify(h, []byte(d.Body), nil, 0, now); status != SignatureUnchecked {
			t.Errorf("delivery %d: no secret: got %v, want unchecked", i, status)
		}
		h.Del("X-Vault-Signature")
		if status, _, _, _ := Verify(h, []byte(d.Body), []string{secret}, 0, now); status != SignatureMissing {
			t.Errorf("delivery %d: no signature: got %v, want missing", i, status)
		}
	}
}

func TestVerifyHeaderBrands(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	now := time.Unix(1_800_000_000, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	for _, word := range []string{"Service", "Vault", "ACME2"} {
		h := http.Header{}
		h.Set("X-"+word+"-Signature", crypto.SignWebhook("whsec_k", ts, body))
		h.Set("X-"+word+"-Timestamp", ts)
		h.Set("X-"+word+"-Event", "email.received")
		h.Set("X-"+word+"-Delivery", "dlv_1")
		status, event, id, _ := Verify(h, body, []string{"whsec_k"}, DefaultTolerance, now)
		if status != SignatureValid || event != "email.received" || id != "dlv_1" {
			t.Errorf("%s: got %v %q %q", word, status, event, id)
		}
	}
	// Two words are not one brand.
	h := http.Header{}
	h.Set("X-Two-Words-Signature", crypto.SignWebhook("whsec_k", ts, body))
	if status, _, _, _ := Verify(h, body, []string{"whsec_k"}, 0, now); status != SignatureMissing {
		t.Errorf("multi-word brand: got %v, want missing", status)
	}
	// A future timestamp beyond the tolerance is stale too.
	h = http.Header{}
	future := strconv.FormatInt(now.Add(10*time.Minute).Unix(), 10)
	h.Set("X-Service-Signature", crypto.SignWebhook("whsec_k", future, body))
	h.Set("X-Service-Timestamp", future)
	if status, _, _, _ := Verify(h, body, []string{"whsec_k"}, DefaultTolerance, now); status != SignatureStale {
		t.Errorf("future timestamp: got %v, want stale", status)
	}
}

func TestReceiverReplaysRecordedDeliveries(t *testing.T) {
	secret, deliveries := loadFixtures(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Listen(ctx, "127.0.0.1:0", Options{Secrets: []string{secret}, SkipStalenessCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !strings.HasPrefix(r.URL(), "http://127.0.0.1:") || !strings.HasSuffix(r.URL(), "/hook") {
		t.Fatalf("URL %q", r.URL())
	}
	for i, d := range deliveries {
		req, _ := http.NewRequest(http.MethodPost, r.URL(), strings.NewReader(d.Body))
		for _, kv := range d.Headers {
			if kv[0] == "Content-Length" || kv[0] == "Host" || kv[0] == "Connection" {
				continue
			}
			req.Header.Add(kv[0], kv[1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("delivery %d: status %d", i, resp.StatusCode)
		}
		got := <-r.Deliveries()
		if got.Signature != SignatureValid {
			t.Errorf("delivery %d: signature %v", i, got.Signature)
		}
		if got.Event == "" || got.DeliveryID == "" || got.Timestamp == "" || got.Path != "/hook" {
			t.Errorf("delivery %d: %+v", i, got)
		}
		if !bytes.Equal(got.Body, []byte(d.Body)) || !strings.Contains(got.PrettyBody, "\n  \"id\"") {
			t.Errorf("delivery %d: body not kept or not indented: %q", i, got.PrettyBody)
		}
	}
	// The same deliveries with the check on are stale; after a secret
	// change they are invalid.
	r2, err := Listen(ctx, "127.0.0.1:0", Options{Secrets: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	post := func(d recorded) Delivery {
		req, _ := http.NewRequest(http.MethodPost, r2.URL(), strings.NewReader(d.Body))
		req.Header = d.header()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return <-r2.Deliveries()
	}
	if got := post(deliveries[0]); got.Signature != SignatureStale {
		t.Errorf("with staleness check: %v, want stale", got.Signature)
	}
	r2.SetSecrets("whsec_wrong")
	if got := post(deliveries[0]); got.Signature != SignatureInvalid {
		t.Errorf("after SetSecrets: %v, want invalid", got.Signature)
	}
}

func TestReceiverDropsOldestWhenFull(t *testing.T) {
	r, err := Listen(context.Background(), "127.0.0.1:0", Options{Buffer: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range 5 {
		resp, err := http.Post(r.URL(), "application/json", strings.NewReader(fmt.Sprintf(`{"n":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	if got := r.Dropped(); got != 3 {
		t.Errorf("dropped %d, want 3", got)
	}
	for _, want := range []string{`{"n":3}`, `{"n":4}`} {
		d := <-r.Deliveries()
		if string(d.Body) != want {
			t.Errorf("got %s, want %s", d.Body, want)
		}
		if d.Signature != SignatureMissing {
			t.Errorf("unsigned delivery: %v", d.Signature)
		}
	}
}

func TestReceiverClosesWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r, err := Listen(ctx, "127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case _, open := <-r.Deliveries():
		if open {
			t.Fatal("unexpected delivery")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("deliveries channel not closed after the context ended")
	}
	if _, err := http.Post(r.URL(), "application/json", strings.NewReader("{}")); err == nil {
		t.Error("receiver still answers after close")
	}
	resp, err := http.Get("http://" + r.Addr())
	if err == nil {
		resp.Body.Close()
		t.Error("GET answered after close")
	}
}

func TestReceiverRefusesNonPost(t *testing.T) {
	r, err := Listen(context.Background(), "127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	resp, err := http.Get(r.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", resp.StatusCode)
	}
}

// TestAbandoned tells a receiver that listens from one left behind, and
// leaves alone what is not a loopback receiver.
func TestAbandoned(t *testing.T) {
	ctx := context.Background()
	r, err := Listen(ctx, "127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	url := r.URL()
	if Abandoned(ctx, url) {
		t.Fatal("a listening receiver counts as abandoned")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if !Abandoned(ctx, url) {
		t.Fatal("a closed receiver does not count as abandoned")
	}
	for _, u := range []string{"https://hooks.example.com/x", "http://192.0.2.1:9/hook", "http://127.0.0.1/hook", "::bad"} {
		if Abandoned(ctx, u) {
			t.Errorf("%s counts as abandoned", u)
		}
	}
}
