package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sandview/model"
)

// fakeResolver answers from a table; other names do not resolve.
type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// rebinding resolves every name to a public address once, then to
// 127.0.0.1.
type rebinding struct{ lookups atomic.Int64 }

func (r *rebinding) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	if r.lookups.Add(1) == 1 {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// guardedConfig is testConfig without AllowPrivate: the default rule.
func guardedConfig() Config {
	cfg := testConfig()
	cfg.AllowPrivate = false
	cfg.Resolver = fakeResolver{
		"public.test":   {netip.MustParseAddr("93.184.216.34")},
		"internal.test": {netip.MustParseAddr("10.1.2.3")},
		"rebound.test":  {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("127.0.0.1")},
	}
	return cfg
}

// TestDestinationRefusedAtCreateAndUpdate: URLs whose host is or resolves
// to a loopback, private, link-local, unspecified or metadata address
// answer 400 naming the rule, on create and update.
func TestDestinationRefusedAtCreateAndUpdate(t *testing.T) {
	h := newHarness(t, guardedConfig())
	refused := []string{
		"http://127.0.0.1:9/x", "http://localhost:9/x", "http://[::1]:9/x", "http://0.0.0.0:9/x",
		"http://[::ffff:127.0.0.1]:9/x", "http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/",
		"https://10.0.0.1/", "https://192.168.1.10/", "https://100.64.0.1/", "https://[fe80::1]/",
		"https://internal.test/hook", "https://rebound.test/hook",
	}
	for _, u := range refused {
		var body model.ErrorBody
		status := h.call(http.MethodPost, "/api/webhooks", model.CreateWebhookRequest{URL: u, Events: []string{model.EventEmailReceived}}, &body)
		if status != http.StatusBadRequest || !strings.Contains(body.Message.String(), "--private-webhooks (SVC_WEBHOOK_ALLOW_PRIVATE=true)") {
			t.Errorf("create %s: status %d, %q; want the refusal naming --private-webhooks and its variable", u, status, body.Message)
		}
	}
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: "https://public.test/hook", Events: []string{model.EventEmailReceived}})
	for _, u := range refused {
		var body model.ErrorBody
		status := h.call(http.MethodPatch, "/api/webhooks/"+wh.ID, map[string]any{"url": u}, &body)
		if status != http.StatusBadRequest || !strings.Contains(body.Message.String(), "private") {
			t.Errorf("update to %s: status %d, %q", u, status, body.Message)
		}
	}
	if got := h.get("/api/webhooks/" + wh.ID); got.URL != "https://public.test/hook" {
		t.Errorf("URL changed to %s", got.URL)
	}
	// A name that does not resolve (yet) is not refused: the connection is
	// checked when it is made.
	h.create("/api/webhooks", model.CreateWebhookRequest{URL: "https://unresolved.test/hook", Events: []string{model.EventEmailReceived}})
}

// TestDestinationRefusedAtConnect: a name that passed the create check but
// resolves to loopback when the delivery connects (DNS rebinding) is
// refused by the dialer, and the receiver never hears from the server.
func TestDestinationRefusedAtConnect(t *testing.T) {
	var hits atomic.Int64
	recv := newCountingServer(t, &hits)
	_, port, _ := net.SplitHostPort(recv.Addr().String())
	cfg := guardedConfig()
	// At create time the name answers a public address; every later
	// lookup (the connections) answers 127.0.0.1.
	cfg.Resolver = &rebinding{}
	h := newHarness(t, cfg)
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: "http://rebind.test:" + port + "/hook", Events: []string{model.EventEmailReceived}})

	var res model.TestWebhookResponse
	if status := h.call(http.MethodPost, "/api/webhooks/"+wh.ID+"/test", nil, &res); status != http.StatusOK {
		t.Fatalf("test: status %d", status)
	}
	if res.Success || res.StatusCode != 0 || res.Error != "delivery failed" {
		t.Errorf("test result %+v", res)
	}

	h.engine.Handle(received("e1", plainMail("e1", "Shipped")))
	eventually(t, "a failed delivery", func() bool { return h.get("/api/webhooks/"+wh.ID).LastDeliveryStatus == "failed" })
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback receiver got %d requests", n)
	}
}

// TestTestOperationErrorsNameNoConnectionDetail: the test operation says
// "delivery failed" with the HTTP status when there was one, never why a
// connection failed (refused, TLS, DNS and its resolver).
func TestTestOperationErrorsNameNoConnectionDetail(t *testing.T) {
	h := newHarness(t, testConfig())
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String() + "/"
	_ = closed.Close()
	var hits atomic.Int64
	plain := newCountingServer(t, &hits)
	notFound := newSink(t, http.StatusNotFound)
	for _, c := range []struct{ url, want string }{
		{closedURL, "delivery failed"},
		{"https://" + plain.Addr().String() + "/", "delivery failed"},
		{"https://no-such-host.invalid/", "delivery failed"},
		{notFound.URL, "delivery failed: endpoint answered 404 Not Found"},
	} {
		wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: c.url, Events: []string{model.EventEmailReceived}})
		var res model.TestWebhookResponse
		h.call(http.MethodPost, "/api/webhooks/"+wh.ID+"/test", nil, &res)
		if res.Success || res.Error != c.want {
			t.Errorf("%s: error %q, want %q", c.url, res.Error, c.want)
		}
		h.call(http.MethodDelete, "/api/webhooks/"+wh.ID, nil, nil)
	}
}

// countingServer is a plain HTTP server on loopback that counts requests.
type countingServer struct{ ln net.Listener }

func (c countingServer) Addr() net.Addr { return c.ln.Addr() }

func newCountingServer(t *testing.T, hits *atomic.Int64) countingServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("internal secret"))
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return countingServer{ln: ln}
}

// TestRedirectsAreNotFollowed: a 3xx answer is a failed attempt; its
// Location is never contacted.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var hits atomic.Int64
	target := newCountingServer(t, &hits)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+target.Addr().String()+"/", http.StatusFound)
	}))
	t.Cleanup(redirector.Close)
	h := newHarness(t, testConfig())
	wh := h.create("/api/webhooks", model.CreateWebhookRequest{URL: redirector.URL, Events: []string{model.EventEmailReceived}})
	var res model.TestWebhookResponse
	h.call(http.MethodPost, "/api/webhooks/"+wh.ID+"/test", nil, &res)
	if res.Success || res.Error != "delivery failed: endpoint answered 302 Found" {
		t.Errorf("test result %+v", res)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests", n)
	}
}
