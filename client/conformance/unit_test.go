package conformance_test

// Unit group: no server (httptest stands in where an HTTP peer is needed).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/client"
	"sandview/crypto"
	"sandview/model"
)

func TestConformance_Unit_Base64urlRoundTrip(t *testing.T) {
	for n := range 64 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*37 + n*11 + 0xf8)
		}
		enc := crypto.EncodeBase64URL(b)
		if strings.Contains(enc, "=") || strings.ContainsAny(enc, "+/") {
			t.Fatalf("%q: padding or the standard alphabet", enc)
		}
		dec, err := crypto.DecodeBase64URL(enc)
		if err != nil || !bytes.Equal(dec, b) {
			t.Fatalf("round trip of %x: %x, %v", b, dec, err)
		}
	}
	enc := crypto.EncodeBase64URL([]byte{0xfb, 0xff, 0xfe})
	if !strings.Contains(enc, "-") || !strings.Contains(enc, "_") {
		t.Fatalf("%q does not use - and _", enc)
	}
}

func TestConformance_Unit_KeypairSizesAndUniqueness(t *testing.T) {
	a, err := crypto.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	b, err := crypto.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	if len(a.PublicKey) != 1184 || len(a.SecretKey) != 2400 {
		t.Fatalf("sizes %d/%d, want 1184/2400", len(a.PublicKey), len(a.SecretKey))
	}
	if bytes.Equal(a.PublicKey, b.PublicKey) || bytes.Equal(a.SecretKey, b.SecretKey) {
		t.Fatal("two key pairs are equal")
	}
}

// auth builds auth results from the four outcomes ("" leaves one out).
func auth(spf string, dkim []string, dmarc, rdns string) model.AuthResults {
	var a model.AuthResults
	if spf != "" {
		a.SPF = &model.SPFResult{Result: spf, Domain: "example.org"}
	}
	for _, r := range dkim {
		a.DKIM = append(a.DKIM, model.DKIMResult{Result: r, Domain: "example.org"})
	}
	if dmarc != "" {
		a.DMARC = &model.DMARCResult{Result: dmarc}
	}
	if rdns != "" {
		a.ReverseDNS = &model.ReverseDNSResult{Result: rdns}
	}
	return a
}

func TestConformance_Unit_AuthAllPass(t *testing.T) {
	v := auth("pass", []string{"pass"}, "pass", "pass").Validate()
	if !v.Passed || !v.SPFPassed || !v.DKIMPassed || !v.DMARCPassed || len(v.Failures) != 0 {
		t.Fatalf("%+v", v)
	}
}

func TestConformance_Unit_AuthOneCheckFails(t *testing.T) {
	cases := []struct {
		name string
		a    model.AuthResults
		flag func(model.AuthValidation) bool
		word string
	}{
		{"spf", auth("fail", []string{"pass"}, "pass", "pass"), func(v model.AuthValidation) bool { return v.SPFPassed }, "SPF"},
		{"dkim", auth("pass", []string{"fail"}, "pass", "pass"), func(v model.AuthValidation) bool { return v.DKIMPassed }, "DKIM"},
		{"dmarc", auth("pass", []string{"pass"}, "fail", "pass"), func(v model.AuthValidation) bool { return v.DMARCPassed }, "DMARC"},
	}
	for _, tc := range cases {
		v := tc.a.Validate()
		if v.Passed || tc.flag(v) || len(v.Failures) == 0 || !strings.Contains(strings.ToUpper(strings.Join(v.Failures, " ")), tc.word) {
			t.Errorf("%s failing: %+v", tc.name, v)
		}
	}
}

func TestConformance_Unit_AuthSeveralDKIMOnePasses(t *testing.T) {
	if v := auth("pass", []string{"fail", "pass", "none"}, "pass", "pass").Validate(); !v.DKIMPassed || !v.Passed {
		t.Fatalf("%+v", v)
	}
}

func TestConformance_Unit_AuthAllNone(t *testing.T) {
	if v := auth("none", []string{"none"}, "none", "none").Validate(); v.Passed {
		t.Fatalf("%+v", v)
	}
}

func TestConformance_Unit_AuthNoData(t *testing.T) {
	v := model.AuthResults{}.Validate()
	if v.Passed || v.SPFPassed || v.DKIMPassed || v.DMARCPassed || v.ReverseDNSPassed {
		t.Fatalf("%+v", v)
	}
}

func TestConformance_Unit_AuthReverseDNSDoesNotChangePassed(t *testing.T) {
	if v := auth("pass", []string{"pass"}, "pass", "fail").Validate(); !v.Passed || v.ReverseDNSPassed {
		t.Fatalf("%+v", v)
	}
}

func TestConformance_Unit_DefaultsWithOnlyAnAPIKey(t *testing.T) {
	c, err := client.New("http://127.0.0.1:1", "key")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o := c.Options()
	if o.Timeout != 30*time.Second || o.MaxRetries != 3 || o.Strategy != client.StrategyAuto {
		t.Fatalf("timeout %s, retries %d, strategy %s", o.Timeout, o.MaxRetries, o.Strategy)
	}
}

func TestConformance_Unit_NetworkUnreachableServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	c, err := client.New("http://"+addr, "key", client.WithRetries(1, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.ServerInfo(context.Background())
	var netErr *client.NetworkError
	if !errors.As(err, &netErr) {
		t.Fatalf("%v (%T), want a network error", err, err)
	}
}

// scripted answers each request with the next status of the script (the
// last one repeats) and counts the requests.
type scripted struct {
	mu       sync.Mutex
	statuses []int
	header   http.Header
	requests int
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	status := s.statuses[min(s.requests, len(s.statuses)-1)]
	s.requests++
	s.mu.Unlock()
	for k, v := range s.header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	if status == http.StatusOK {
		fmt.Fprint(w, `{"ok":true}`)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"statusCode": status, "message": http.StatusText(status)})
}

func (s *scripted) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func scriptedClient(t *testing.T, s *scripted, retries int) *client.Client {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, "key", client.WithRetries(retries, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestConformance_Unit_RetryFiveHundredThenSuccess(t *testing.T) {
	s := &scripted{statuses: []int{500, 503, 200}}
	ok, err := scriptedClient(t, s, 3).CheckKey(context.Background())
	if err != nil || !ok || s.count() != 3 {
		t.Fatalf("ok %v, err %v after %d requests", ok, err, s.count())
	}
}

func TestConformance_Unit_RetryConstantFiveHundredFails(t *testing.T) {
	s := &scripted{statuses: []int{502}}
	_, err := scriptedClient(t, s, 3).CheckKey(context.Background())
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || s.count() != 4 {
		t.Fatalf("%v after %d requests, want a 502 after 1+3", err, s.count())
	}
}

func TestConformance_Unit_RetryFourHundredFailsAtOnce(t *testing.T) {
	s := &scripted{statuses: []int{400, 200}}
	_, err := scriptedClient(t, s, 3).CheckKey(context.Background())
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || s.count() != 1 {
		t.Fatalf("%v after %d requests, want a 400 at once", err, s.count())
	}
}

func TestConformance_Unit_RetryAfterIsHonoured(t *testing.T) {
	s := &scripted{statuses: []int{429, 200}, header: http.Header{"Retry-After": {"1"}}}
	start := time.Now()
	ok, err := scriptedClient(t, s, 3).CheckKey(context.Background())
	if err != nil || !ok || time.Since(start) < time.Second {
		t.Fatalf("ok %v, err %v after %s; Retry-After asked for 1s", ok, err, time.Since(start))
	}
}

// validExport is an encrypted export that passes validation.
func validExport(t *testing.T) map[string]any {
	t.Helper()
	kp, err := crypto.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	sk, err := crypto.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"version": 1, "emailAddress": "a@sandbox.test", "expiresAt": "2030-01-01T00:00:00.000Z",
		"inboxHash": crypto.InboxHash(kp.PublicKey), "encrypted": true,
		"serverSigPk": crypto.EncodeBase64URL(sk.PublicKey()), "secretKey": crypto.EncodeBase64URL(kp.SecretKey),
		"exportedAt": "2029-12-31T00:00:00.000Z",
	}
}

func TestConformance_Unit_ImportInvalidDataRejected(t *testing.T) {
	short := crypto.EncodeBase64URL(make([]byte, 100))
	cases := map[string]func(m map[string]any){
		"missing emailAddress":   func(m map[string]any) { delete(m, "emailAddress") },
		"empty emailAddress":     func(m map[string]any) { m["emailAddress"] = "" },
		"missing inboxHash":      func(m map[string]any) { delete(m, "inboxHash") },
		"empty inboxHash":        func(m map[string]any) { m["inboxHash"] = "" },
		"null exportedAt":        func(m map[string]any) { m["exportedAt"] = nil },
		"bad expiresAt":          func(m map[string]any) { m["expiresAt"] = "tomorrow" },
		"bad exportedAt":         func(m map[string]any) { m["exportedAt"] = "2030-13-45" },
		"bad secretKey base64":   func(m map[string]any) { m["secretKey"] = "not+base64/url=" },
		"bad serverSigPk base64": func(m map[string]any) { m["serverSigPk"] = "***" },
		"short secretKey":        func(m map[string]any) { m["secretKey"] = short },
		"short serverSigPk":      func(m map[string]any) { m["serverSigPk"] = short },
		"missing secretKey":      func(m map[string]any) { delete(m, "secretKey") },
		"version 2":              func(m map[string]any) { m["version"] = 2 },
		"two @":                  func(m map[string]any) { m["emailAddress"] = "a@b@c" },
	}
	for name, mutate := range cases {
		m := validExport(t)
		mutate(m)
		data, _ := json.Marshal(m)
		var invalid *client.InvalidImportDataError
		if _, err := client.ValidateExport(data); !errors.As(err, &invalid) {
			t.Errorf("%s: %v, want an invalid-import error", name, err)
		}
	}
	data, _ := json.Marshal(validExport(t))
	if _, err := client.ValidateExport(data); err != nil {
		t.Fatalf("valid export rejected: %v", err)
	}
}
