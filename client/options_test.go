package client_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/client"
)

func TestDefaultsWithOnlyAnAPIKey(t *testing.T) {
	c, err := client.New("http://127.0.0.1:8025", "key")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o := c.Options()
	if o.Timeout != 30*time.Second || o.MaxRetries != 3 || o.Strategy != client.StrategyAuto {
		t.Fatalf("timeout %v retries %d strategy %q", o.Timeout, o.MaxRetries, o.Strategy)
	}
	if o.RetryDelay != time.Second || !slices.Equal(o.RetryOn, []int{408, 429, 500, 502, 503, 504}) {
		t.Fatalf("retry delay %v on %v", o.RetryDelay, o.RetryOn)
	}
	if o.PollingInterval != 2*time.Second || o.PollingMaxBackoff != 30*time.Second ||
		o.PollingBackoffMultiplier != 1.5 || o.PollingJitterFactor != 0.3 {
		t.Fatalf("polling %+v", o)
	}
	if o.SSEReconnectInterval != 5*time.Second || o.SSEMaxReconnectAttempts != 10 || o.SSEConnectionTimeout != 5*time.Second ||
		o.SSEMaxReconnectDelay != 0 || o.SSEReconnectJitter != 0 {
		t.Fatalf("stream %+v", o)
	}
	if o.HTTPClient != nil || o.OnSyncError != nil || o.APIKey != "key" || o.BaseURL != "http://127.0.0.1:8025" {
		t.Fatalf("others %+v", o)
	}
	// Options returns a copy.
	o.RetryOn[0] = 999
	if c.Options().RetryOn[0] != 408 {
		t.Fatal("Options shares its slice")
	}
}

func TestOptionsApply(t *testing.T) {
	hc := &http.Client{}
	called := false
	c, err := client.New("https://sandbox.example.com/", "key",
		client.WithStrategy(client.StrategyPolling), client.WithTimeout(time.Second),
		client.WithRetries(5, 10*time.Millisecond), client.WithRetryOn(503),
		client.WithHTTPClient(hc), client.WithOnSyncError(func(error) { called = true }),
		client.WithPolling(time.Second, 10*time.Second, 2, 0.1),
		client.WithSSE(time.Second, 3, 2*time.Second), client.WithSSEBackoff(30*time.Second, 0.3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o := c.Options()
	if c.BaseURL() != "https://sandbox.example.com" || o.Strategy != client.StrategyPolling || o.Timeout != time.Second ||
		o.MaxRetries != 5 || o.RetryDelay != 10*time.Millisecond || !slices.Equal(o.RetryOn, []int{503}) ||
		o.HTTPClient != hc || o.PollingInterval != time.Second || o.PollingMaxBackoff != 10*time.Second ||
		o.PollingBackoffMultiplier != 2 || o.PollingJitterFactor != 0.1 || o.SSEReconnectInterval != time.Second ||
		o.SSEMaxReconnectAttempts != 3 || o.SSEConnectionTimeout != 2*time.Second ||
		o.SSEMaxReconnectDelay != 30*time.Second || o.SSEReconnectJitter != 0.3 {
		t.Fatalf("options %+v", o)
	}
	o.OnSyncError(nil)
	if !called {
		t.Fatal("OnSyncError not kept")
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		url, key string
		opts     []client.Option
		want     string
	}{
		{"http://127.0.0.1:8025", "", nil, "API key is required"},
		{"", "k", nil, "server URL is required"},
		{"127.0.0.1:8025", "k", nil, "http:// or https://"},
		{"ftp://host", "k", nil, "http:// or https://"},
		{"http://", "k", nil, "no host"},
		{"http://h", "k", []client.Option{client.WithStrategy("push")}, "unknown delivery strategy"},
		{"http://h", "k", []client.Option{client.WithTimeout(0)}, "timeout must be positive"},
		{"http://h", "k", []client.Option{client.WithRetries(-1, 0)}, "max retries"},
		{"http://h", "k", []client.Option{client.WithPolling(time.Second, time.Second, 1.5, 2)}, "jitter"},
		{"http://h", "k", []client.Option{client.WithSSEBackoff(-time.Second, 0)}, "max reconnect delay"},
		{"http://h", "k", []client.Option{client.WithSSEBackoff(0, 1.5)}, "reconnect jitter"},
	} {
		c, err := client.New(tc.url, tc.key, tc.opts...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q): %v, want %q", tc.url, tc.key, err, tc.want)
		}
		if c != nil {
			t.Errorf("New(%q) returned a client with an error", tc.url)
		}
	}
}
