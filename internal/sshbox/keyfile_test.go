package sshbox

import (
	"net"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func TestKeyOptions(t *testing.T) {
	k := newKey(t)
	for _, tc := range []struct {
		options string
		want    string // role, noPty; "" when the key is refused
		refusal string // in the error
	}{
		{"", "member false", ""},
		{`role="viewer"`, "viewer false", ""},
		{`ROLE="admin"`, "admin false", ""},
		{`role="root"`, "", `role="root"`},
		{`role=admin`, "", "double quotes"},
		{`role`, "", "needs a value"},
		{"restrict", "member true", ""},
		{"no-pty", "member true", ""},
		{"restrict,pty", "member false", ""},
		{"no-port-forwarding,no-agent-forwarding,no-X11-forwarding,no-user-rc", "member false", ""},
		{`from="127.0.0.1,10.0.0.0/8,!10.1.*"`, "member false", ""},
		{`from="10.0.0.1/33"`, "", "option from"},
		{`from="host[1]"`, "", "option from"},
		{`from=""`, "", "option from"},
		{`expiry-time="20300101"`, "member false", ""},
		{`expiry-time="2030-01-01"`, "", "option expiry-time"},
		{`command="sh"`, "", "option command "},
		{`environment="A=b"`, "", "option environment "},
		{`permitopen="host:22"`, "", "option permitopen "},
		{`principals="a"`, "", "option principals "},
		{"cert-authority", "", "option cert-authority "},
		{`tunnel="0"`, "", "option tunnel "},
		{"no-touch-required", "", "option no-touch-required "},
		{"frobnicate", "", "option frobnicate "},
		{"no-pty=yes", "", "takes no value"},
		{`role="viewer",command="x"`, "", "option command "},
	} {
		t.Run(tc.options, func(t *testing.T) {
			text := line(k, "c")
			if tc.options != "" {
				text = tc.options + " " + text
			}
			g, err := parseGrant([]byte(text))
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), tc.refusal) || !strings.Contains(err.Error(), "not loaded") {
					t.Fatalf("error %v, want one naming %q", err, tc.refusal)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := g.Role + " " + map[bool]string{true: "true", false: "false"}[g.noPty]; got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestFromPatterns(t *testing.T) {
	for _, tc := range []struct {
		list, addr string
		want       bool
	}{
		{"127.0.0.1", "127.0.0.1:22", true},
		{"127.0.0.2", "127.0.0.1:22", false},
		{"10.0.0.0/8", "10.200.3.4:1", true},
		{"10.0.0.0/8", "11.0.0.1:1", false},
		{"127.0.0.*", "127.0.0.9:1", true},
		{"127.0.0.?", "127.0.0.19:1", false},
		{"*,!127.0.0.1", "127.0.0.1:1", false},
		{"!127.0.0.1,*", "127.0.0.2:1", true},
		{"!10.0.0.0/8", "127.0.0.1:1", false}, // a negation alone allows nobody
		{"::1", "[::1]:22", true},
		{"fd00::/8", "[fd12::1]:22", true},
		{"FD12::*", "[fd12::1]:22", true},
		{"127.0.0.1", "[::ffff:127.0.0.1]:22", true},
		{"localhost", "127.0.0.1:22", false}, // names are not resolved
	} {
		ps, err := parseHostPatterns(tc.list)
		if err != nil {
			t.Fatalf("%q: %v", tc.list, err)
		}
		addr, err := net.ResolveTCPAddr("tcp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := ps.allows(addr); got != tc.want {
			t.Errorf("from=%q, %s: %v, want %v", tc.list, tc.addr, got, tc.want)
		}
	}
}

func TestExpiryTime(t *testing.T) {
	for in, want := range map[string]time.Time{
		"20300102":         time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC),
		"203001021504":     time.Date(2030, 1, 2, 15, 4, 0, 0, time.UTC),
		"20300102150405Z":  time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC),
		"20301302":         {},
		"2030010215":       {},
		"20300102150405ZZ": {},
	} {
		got, err := parseExpiry(in)
		if (err != nil) != want.IsZero() || !got.Equal(want) {
			t.Errorf("%s: %v, %v; want %v", in, got, err, want)
		}
	}
	g := grant{expires: time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)}
	if g.refusal(g.expires.Add(-time.Second), nil) != "" || g.refusal(g.expires, nil) != "expired" {
		t.Fatal("the expiry time is not the first refused instant")
	}
}

func TestALongLineIsSkippedAndTheNextLoad(t *testing.T) {
	a, b := newKey(t), newKey(t)
	data := line(a, "a") + "\n" + strings.Repeat("x", 2<<20) + "\n" + line(b, "b") + "\n"
	grants, problems, err := parseAuthorizedKeys(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := grants[gossh.FingerprintSHA256(b)]; !ok || len(grants) != 2 {
		t.Fatalf("grants %v, want both keys", grants)
	}
	if len(problems) != 1 || problems[0].line != 2 || !strings.Contains(problems[0].err.Error(), "longer than") {
		t.Fatalf("problems %+v, want line 2 too long", problems)
	}
	if g := grants[gossh.FingerprintSHA256(b)]; g.line != 3 {
		t.Fatalf("b is on line %d, want 3", g.line)
	}
}
