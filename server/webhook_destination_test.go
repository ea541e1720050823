package server_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sandview/client/netguard"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
	"sandview/server/webhook"
)

// disguisedHosts name loopback, private, unspecified or metadata addresses
// in forms inet_aton, getaddrinfo or IDNA read as such.
var disguisedHosts = []string{
	"2130706433", "0177.0.0.1", "0x7f000001", "0X7F000001", "127.1", "0", "0x7f.1", "127.0.1",
	"017700000001", "127.0.0.1.", "①②⑦.0.0.1", "127。0。0。1", "１２７.０.０.１", "127．0．0．1",
	"ｌｏｃａｌｈｏｓｔ", "10.1", "3232235777", "0xa9fea9fe", "0251.0376.0251.0376",
}

// TestWebhookDisguisedDestinationsRefused: through the server's HTTP API,
// create and update answer 400 naming the rule for every disguised form
// of a loopback or private address, and accept it with --private-webhooks.
func TestWebhookDisguisedDestinationsRefused(t *testing.T) {
	_, a := servertest.StartAPI(t)
	var hook model.Webhook
	// An address literal: nothing is resolved.
	a.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{
		URL: "https://93.184.216.34/hook", Events: []string{model.EventEmailReceived},
	}, &hook)
	for _, host := range disguisedHosts {
		url := "https://" + host + "/hook"
		a.ExpectError(http.StatusBadRequest, "POST", "/api/webhooks",
			model.CreateWebhookRequest{URL: url, Events: []string{model.EventEmailReceived}}, "--private-webhooks")
		a.ExpectError(http.StatusBadRequest, "PATCH", "/api/webhooks/"+hook.ID, map[string]any{"url": url}, "--private-webhooks")
	}
	var got model.Webhook
	a.Expect(http.StatusOK, "GET", "/api/webhooks/"+hook.ID, nil, &got)
	if got.URL != "https://93.184.216.34/hook" {
		t.Errorf("URL changed to %s", got.URL)
	}

	_, private := servertest.StartAPI(t, webhookSettings(true, nil))
	for _, host := range disguisedHosts {
		private.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{
			URL: "https://" + host + "/hook", Events: []string{model.EventEmailReceived},
		}, nil)
	}
}

// webhookSettings are the webhook settings of a test server: plain HTTP
// allowed, a short attempt timeout, private destinations as allowPrivate
// says (--private-webhooks) and, when not nil, resolver for URL hosts.
func webhookSettings(allowPrivate bool, resolver netguard.Resolver) func(*server.Config) {
	return func(cfg *server.Config) {
		w := webhook.DefaultConfig()
		w.AllowPrivate, w.AllowHTTP = allowPrivate, true
		w.Timeout = 300 * time.Millisecond
		w.Resolver = resolver
		cfg.Webhooks = &w
	}
}

// rebinder resolves every name to a public address once, then to
// 127.0.0.1: a name that passes the create check and is refused when the
// delivery connects.
type rebinder struct{ lookups atomic.Int64 }

func (r *rebinder) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	if r.lookups.Add(1) == 1 {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// TestWebhookTestAnswerNamesNoCause: the test operation answers
// "delivered" (success) or "delivery failed", with the status when the
// target answered, never its body; a closed port, a target that never
// answers and a destination refused at connect time give the same answer.
func TestWebhookTestAnswerNamesNoCause(t *testing.T) {
	_, a := servertest.StartAPI(t, webhookSettings(true, nil))
	testHook := func(a *servertest.Client, url string) (model.TestWebhookResponse, string) {
		t.Helper()
		var hook model.Webhook
		a.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{URL: url, Events: []string{model.EventEmailReceived}}, &hook)
		status, data := a.Do("POST", "/api/webhooks/"+hook.ID+"/test", nil)
		if status != http.StatusOK {
			t.Fatalf("test %s: status %d, %s", url, status, data)
		}
		var res model.TestWebhookResponse
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "internal secret") {
			t.Errorf("test %s: the answer carries the target's body: %s", url, data)
		}
		res.PayloadSent = nil
		return res, string(data)
	}

	// Delivered, to a disguised loopback address the dialer reads as the check did.
	recv := listen(t)
	_, port, _ := net.SplitHostPort(recv.Addr())
	if res, raw := testHook(a, "http://2130706433:"+port+"/hook"); !res.Success || res.StatusCode != http.StatusOK || res.Error != "" {
		t.Errorf("delivered: %s", raw)
	}
	failing := answering(t, http.StatusInternalServerError)
	res, raw := testHook(a, "http://"+failing+"/hook")
	if res.Success || res.StatusCode != http.StatusInternalServerError || res.Error != "delivery failed: endpoint answered 500 Internal Server Error" || res.ResponseBody != "" {
		t.Errorf("500: %s", raw)
	}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	_ = closed.Close()
	want := model.TestWebhookResponse{Error: "delivery failed"}
	if res, raw := testHook(a, "http://"+closedAddr+"/hook"); !reflect.DeepEqual(res, want) {
		t.Errorf("closed port: %s, want only %q", raw, want.Error)
	}
	if res, raw := testHook(a, "http://"+silent(t)+"/hook"); !reflect.DeepEqual(res, want) {
		t.Errorf("no answer: %s, want only %q", raw, want.Error)
	}
	_, guarded := servertest.StartAPI(t, webhookSettings(false, &rebinder{}))
	if res, raw := testHook(guarded, "http://rebind.test:"+port+"/hook"); !reflect.DeepEqual(res, want) {
		t.Errorf("loopback refused at connect: %s, want only %q", raw, want.Error)
	}
}

// answering is a loopback HTTP server answering status with a body the
// test operation must not pass on; it returns its address.
func answering(t *testing.T, status int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte("internal secret"))
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// silent accepts connections and never answers; it returns its address.
func silent(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
			close(done)
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
	})
	return ln.Addr().String()
}
