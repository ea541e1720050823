package netguard_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"

	"sandview/client/netguard"
)

// disguisedLoopback are hosts a URL may carry that inet_aton, getaddrinfo
// or IDNA read as 127.0.0.1 (or another loopback address).
var disguisedLoopback = map[string]string{
	"2130706433":     "127.0.0.1",
	"0177.0.0.1":     "127.0.0.1",
	"0x7f000001":     "127.0.0.1",
	"0X7F000001":     "127.0.0.1",
	"0x7f.0.0.1":     "127.0.0.1",
	"0x7f.1":         "127.0.0.1",
	"127.1":          "127.0.0.1",
	"127.0.1":        "127.0.0.1",
	"017700000001":   "127.0.0.1",
	"0177.0.0.01":    "127.0.0.1",
	"127.0.0.1.":     "127.0.0.1",
	"①②⑦.0.0.1":      "127.0.0.1",
	"127。0。0。1":      "127.0.0.1",
	"１２７.０.０.１":      "127.0.0.1",
	"127．0．0．1":      "127.0.0.1",
	"127.000.000.1":  "127.0.0.1",
	"0x7f.0xff.0377": "127.255.0.255",
}

func TestParseHost(t *testing.T) {
	for host, want := range disguisedLoopback {
		h, err := netguard.ParseHost(host)
		if err != nil || !h.IsAddr() || h.Addr.String() != want || h.Name != want {
			t.Errorf("ParseHost(%q) = %+v, %v; want the address %s", host, h, err, want)
		}
	}
	for host, want := range map[string]string{
		"0":             "0.0.0.0",
		"10.1":          "10.0.0.1",
		"3232235777":    "192.168.1.1",
		"0xa9fea9fe":    "169.254.169.254",
		"::ffff:7f00:1": "127.0.0.1",
		"fe80::1%eth0":  "fe80::1%eth0",
		"4294967295":    "255.255.255.255",
	} {
		h, err := netguard.ParseHost(host)
		if err != nil || h.Addr.String() != want {
			t.Errorf("ParseHost(%q) = %+v, %v; want %s", host, h, err, want)
		}
	}
	// Names, including what inet_aton refuses: too many parts, a part too
	// big for its bytes, an octal 8, an empty part, a sign.
	for host, want := range map[string]string{
		"example.org":  "example.org",
		"Example.ORG.": "example.org",
		"ｌｏｃａｌｈｏｓｔ":    "localhost",
		"bücher.de":    "xn--bcher-kva.de",
		"1.2.3.4.5":    "1.2.3.4.5",
		"4294967296":   "4294967296",
		"256.1":        "256.1",
		"1.16777216":   "1.16777216",
		"08.0.0.1":     "08.0.0.1",
		"127..1":       "127..1",
		"0x":           "0x",
		"0x7g":         "0x7g",
		"1e3":          "1e3",
	} {
		h, err := netguard.ParseHost(host)
		if err != nil || h.IsAddr() || h.Name != want {
			t.Errorf("ParseHost(%q) = %+v, %v; want the name %q", host, h, err, want)
		}
	}
	if _, err := netguard.ParseHost("-bücher.de"); err == nil {
		t.Error("a name IDNA refuses was accepted")
	}
}

// TestDisguisedAddressesRefused: every disguised form is refused by the
// URL check, and LoopbackHost sees through it.
func TestDisguisedAddressesRefused(t *testing.T) {
	ctx := context.Background()
	for host := range disguisedLoopback {
		url := "http://" + host + ":9/hook"
		if err := (netguard.Rule{}).CheckURL(ctx, url, fakeResolver{}); !errors.Is(err, netguard.ErrForbidden) {
			t.Errorf("%s: %v, want ErrForbidden", url, err)
		}
		if !netguard.LoopbackHost(host) {
			t.Errorf("LoopbackHost(%q) = false", host)
		}
	}
	for _, host := range []string{"0", "10.1", "0xa9fea9fe", "3232235777", "ｌｏｃａｌｈｏｓｔ"} {
		if err := (netguard.Rule{}).CheckURL(ctx, "https://"+host+"/", fakeResolver{}); !errors.Is(err, netguard.ErrForbidden) {
			t.Errorf("%s: %v, want ErrForbidden", host, err)
		}
	}
}

// TestTransportDialsParsedHost: the transport dials a disguised address as
// the address ParseHost reads (so the URL check and the connection agree):
// refused under the default rule, reached when loopback is allowed.
func TestTransportDialsParsedHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, host := range []string{"2130706433", "0x7f.1", "①②⑦.0.0.1", "127。0。0。1"} {
		url := "http://" + host + ":" + port + "/"
		resp, err := (&http.Client{Transport: netguard.Rule{}.Transport(fakeResolver{})}).Get(url)
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: connected under the default rule", url)
		} else if !errors.Is(err, netguard.ErrForbidden) {
			t.Errorf("%s: %v, want ErrForbidden", url, err)
		}
		resp, err = (&http.Client{Transport: netguard.Rule{AllowLoopback: true}.Transport(fakeResolver{})}).Get(url)
		if err != nil {
			t.Errorf("%s with loopback allowed: %v", url, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTeapot {
			t.Errorf("%s: status %d", url, resp.StatusCode)
		}
	}
}
