package netguard_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"sandview/client/netguard"
)

func TestClass(t *testing.T) {
	cases := []struct {
		addr, class string
	}{
		// allowed
		{"93.184.216.34", ""},
		{"8.8.8.8", ""},
		{"2606:4700:4700::1111", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"192.169.0.1", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
		{"2002:808:808::1", ""},
		// loopback
		{"127.0.0.1", netguard.ClassLoopback},
		{"127.255.255.254", netguard.ClassLoopback},
		{"::1", netguard.ClassLoopback},
		{"::ffff:127.0.0.1", netguard.ClassLoopback},
		{"::127.0.0.1", netguard.ClassLoopback},
		{"64:ff9b::7f00:1", netguard.ClassLoopback},
		{"2002:7f00:1::", netguard.ClassLoopback},
		// private
		{"10.0.0.1", netguard.ClassPrivate},
		{"172.16.0.1", netguard.ClassPrivate},
		{"172.31.255.255", netguard.ClassPrivate},
		{"192.168.1.1", netguard.ClassPrivate},
		{"::ffff:10.1.2.3", netguard.ClassPrivate},
		{"::ffff:192.168.0.1", netguard.ClassPrivate},
		{"fc00::1", netguard.ClassPrivate},
		{"fd12:3456::1", netguard.ClassPrivate},
		{"fec0::1", netguard.ClassPrivate},
		{"64:ff9b:1::1", netguard.ClassPrivate},
		// link-local
		{"169.254.1.1", netguard.ClassLinkLocal},
		{"fe80::1", netguard.ClassLinkLocal},
		{"fe80::1%eth0", netguard.ClassLinkLocal},
		{"::ffff:169.254.0.1", netguard.ClassLinkLocal},
		// unspecified
		{"0.0.0.0", netguard.ClassUnspecified},
		{"0.1.2.3", netguard.ClassUnspecified},
		{"::", netguard.ClassUnspecified},
		{"::ffff:0.0.0.0", netguard.ClassUnspecified},
		// shared (CGNAT)
		{"100.64.0.1", netguard.ClassShared},
		{"100.127.255.255", netguard.ClassShared},
		// metadata
		{"169.254.169.254", netguard.ClassMetadata},
		{"::ffff:169.254.169.254", netguard.ClassMetadata},
		{"169.254.170.2", netguard.ClassMetadata},
		{"fd00:ec2::254", netguard.ClassMetadata},
		{"100.100.100.200", netguard.ClassMetadata},
		{"64:ff9b::a9fe:a9fe", netguard.ClassMetadata},
		// multicast, reserved
		{"224.0.0.1", netguard.ClassMulticast},
		{"ff02::1", netguard.ClassMulticast},
		{"240.0.0.1", netguard.ClassReserved},
		{"255.255.255.255", netguard.ClassReserved},
		{"192.0.0.8", netguard.ClassReserved},
		{"198.18.0.1", netguard.ClassReserved},
	}
	for _, c := range cases {
		ip := netip.MustParseAddr(c.addr)
		if got := netguard.Class(ip); got != c.class {
			t.Errorf("Class(%s) = %q, want %q", c.addr, got, c.class)
		}
		if got := netguard.Allowed(ip); got != (c.class == "") {
			t.Errorf("Allowed(%s) = %v", c.addr, got)
		}
		if err := (netguard.Rule{AllowPrivate: true}).Check(ip); err != nil {
			t.Errorf("AllowPrivate refuses %s: %v", c.addr, err)
		}
		err := (netguard.Rule{AllowLoopback: true}).Check(ip)
		if want := c.class != "" && c.class != netguard.ClassLoopback; (err != nil) != want {
			t.Errorf("AllowLoopback on %s: %v", c.addr, err)
		}
	}
	if netguard.Allowed(netip.Addr{}) {
		t.Error("the invalid address is allowed")
	}
}

// fakeResolver answers from a table; other names do not resolve.
type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func TestCheckURL(t *testing.T) {
	res := fakeResolver{
		"public.test":   {netip.MustParseAddr("93.184.216.34")},
		"internal.test": {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.5")},
		"meta.test":     {netip.MustParseAddr("::ffff:169.254.169.254")},
	}
	ctx := context.Background()
	for _, c := range []struct {
		url, want string // want: "" allowed, else a part of the error
	}{
		{"https://public.test/hook", ""},
		{"https://unresolvable.test/hook", ""},
		{"https://93.184.216.34/x", ""},
		{"https://internal.test/hook", "internal.test resolves to 10.0.0.5, a private address"},
		{"https://meta.test/", "cloud metadata"},
		{"http://127.0.0.1:8080/", "127.0.0.1 is a loopback address"},
		{"http://[::1]/", "loopback"},
		{"http://0.0.0.0/", "unspecified"},
		{"http://[::ffff:127.0.0.1]/", "loopback"},
		{"http://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{"http://[fe80::1%25eth0]/", "link-local"},
		{"http://LOCALHOST./", "LOCALHOST. resolves to 127.0.0.1, a loopback address"},
		{"http://api.localhost:8080/", "loopback"},
	} {
		err := netguard.Rule{}.CheckURL(ctx, c.url, res)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s refused: %v", c.url, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, netguard.ErrForbidden)):
			t.Errorf("%s: %v, want ErrForbidden with %q", c.url, err, c.want)
		}
		if err := (netguard.Rule{AllowPrivate: true}).CheckURL(ctx, c.url, res); err != nil {
			t.Errorf("AllowPrivate refuses %s: %v", c.url, err)
		}
	}
	// localhost through the system resolver (/etc/hosts).
	if err := (netguard.Rule{}).CheckURL(ctx, "http://localhost:1/", nil); !errors.Is(err, netguard.ErrForbidden) {
		t.Errorf("localhost: %v", err)
	}
	if err := (netguard.Rule{AllowLoopback: true}).CheckURL(ctx, "http://localhost:1/", nil); err != nil {
		t.Errorf("localhost with AllowLoopback: %v", err)
	}
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "::ffff:127.0.0.2": true, "localhost": true,
		"Api.LocalHost.": true, "10.0.0.1": false, "example.org": false, "localhost.example.org": false} {
		if got := netguard.LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v", host, got)
		}
	}
	if err := (netguard.Rule{}).CheckURL(ctx, "http:///path", res); err == nil || errors.Is(err, netguard.ErrForbidden) {
		t.Errorf("no host: %v", err)
	}
}

// TestTransport connects for real: a loopback server is refused at
// connect time whatever the name, and reached when the rule allows it.
func TestTransport(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	for _, url := range []string{"http://127.0.0.1:" + port + "/", "http://localhost:" + port + "/", "http://[::ffff:127.0.0.1]:" + port + "/"} {
		client := &http.Client{Transport: netguard.Rule{}.Transport(nil)}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: connected (status %d)", url, resp.StatusCode)
			continue
		}
		if !errors.Is(err, netguard.ErrForbidden) {
			t.Errorf("%s: %v, want ErrForbidden", url, err)
		}
	}
	for _, rule := range []netguard.Rule{{AllowPrivate: true}, {AllowLoopback: true}} {
		client := &http.Client{Transport: rule.Transport(nil)}
		resp, err := client.Get("http://localhost:" + port + "/")
		if err != nil {
			t.Fatalf("%+v: %v", rule, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTeapot {
			t.Errorf("%+v: status %d", rule, resp.StatusCode)
		}
	}
	// A name the transport's resolver maps to loopback is refused at
	// connect time, whatever the URL check saw.
	rebound := fakeResolver{"public.test": {netip.MustParseAddr("127.0.0.1")}}
	resp, err := (&http.Client{Transport: netguard.Rule{}.Transport(rebound)}).Get("http://public.test:" + port + "/")
	if err == nil {
		resp.Body.Close()
		t.Errorf("rebound name: connected (status %d)", resp.StatusCode)
	} else if !errors.Is(err, netguard.ErrForbidden) {
		t.Errorf("rebound name: %v, want ErrForbidden", err)
	}
	resp, err = (&http.Client{Transport: netguard.Rule{AllowLoopback: true}.Transport(rebound)}).Get("http://public.test:" + port + "/")
	if err != nil {
		t.Fatalf("rebound name with AllowLoopback: %v", err)
	}
	resp.Body.Close()
	// No proxy from the environment under the default rule: a proxy would
	// connect where Control cannot see.
	if (netguard.Rule{}).Transport(nil).Proxy != nil {
		t.Error("the default rule's transport uses a proxy")
	}
	if (netguard.Rule{AllowPrivate: true}).Transport(nil).Proxy == nil {
		t.Error("AllowPrivate's transport ignores the environment's proxy")
	}
	if err := (netguard.Rule{}).Control("tcp", "not-an-address", nil); !errors.Is(err, netguard.ErrForbidden) {
		t.Errorf("unreadable address: %v", err)
	}
}
