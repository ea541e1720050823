package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-smtp"
	"github.com/miekg/dns"

	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server"
	"sandview/server/dnsresolve/dnstest"
)

// senderIP is the loopback address the test mail comes from: not in the
// hosts file, so its reverse DNS is asked of the test's DNS server.
var senderIP = net.IPv4(127, 0, 0, 2)

// authZone publishes, for mail from senderIP, SPF, the DKIM key (selector
// sel), DMARC and forward-confirmed reverse DNS for example.org, and the
// same for broken.example but with a DMARC record that does not parse.
func authZone(pub ed25519.PublicKey) []string {
	key := `"v=DKIM1\; k=ed25519\; p=` + base64.StdEncoding.EncodeToString(pub) + `"`
	return []string{
		`example.org. 300 IN TXT "v=spf1 ip4:127.0.0.2 -all"`,
		`sel._domainkey.example.org. 300 IN TXT ` + key,
		`_dmarc.example.org. 300 IN TXT "v=DMARC1\; p=reject"`,
		`broken.example. 300 IN TXT "v=spf1 ip4:127.0.0.2 -all"`,
		`sel._domainkey.broken.example. 300 IN TXT ` + key,
		`_dmarc.broken.example. 300 IN TXT "v=DMARC1\; p=sometimes"`,
		`2.0.0.127.in-addr.arpa. 300 IN PTR mail.example.org.`,
		`mail.example.org. 300 IN A 127.0.0.2`,
	}
}

// refuseAll answers every query REFUSED.
func refuseAll(query *dns.Msg) []byte {
	m := new(dns.Msg)
	m.SetRcode(query, dns.RcodeRefused)
	packed, err := m.Pack()
	if err != nil {
		panic(err)
	}
	return packed
}

// sendSigned signs a mail from domain with go-msgauth's DKIM signer and
// sends it over SMTP from senderIP.
func sendSigned(t *testing.T, smtpAddr string, key ed25519.PrivateKey, domain, to, subject string) {
	t.Helper()
	msg := "From: Sender <news@" + domain + ">\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nMessage-ID: <" + strings.ReplaceAll(subject, " ", ".") + "@" + domain + ">\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\n\r\nHello\r\n"
	var signed bytes.Buffer
	if err := dkim.Sign(&signed, strings.NewReader(msg), &dkim.SignOptions{Domain: domain, Selector: "sel", Signer: key}); err != nil {
		t.Fatal(err)
	}
	dialer := net.Dialer{LocalAddr: &net.TCPAddr{IP: senderIP}}
	conn, err := dialer.Dial("tcp", smtpAddr)
	if err != nil {
		t.Fatal(err)
	}
	c := smtp.NewClient(conn)
	defer c.Close()
	if err := c.Hello("mail." + domain); err != nil {
		t.Fatal(err)
	}
	if err := smtpsend.SendOn(c, "bounces@"+domain, []string{to}, signed.Bytes()); err != nil {
		t.Fatalf("send %q: %v", subject, err)
	}
	if err := c.Quit(); err != nil {
		t.Fatal(err)
	}
}

// TestAuthResultsWithAnsweringSilentAndRefusingDNS: a mail DKIM-signed by
// go-msgauth, sent over SMTP to the embedded server, read back by `email
// show` (--json and text): with a DNS server that answers, SPF, DKIM, DMARC
// and reverse DNS pass; with one that never answers or one that refuses,
// every check is temperror (RFC 8601), the verdict is "not verified", never
// fail, and the reasons say what the DNS did. A DMARC record that does not
// parse is permerror and fails the verdict.
func TestAuthResultsWithAnsweringSilentAndRefusingDNS(t *testing.T) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	zone := authZone(pub)
	every := func(words string) []string {
		return []string{"SPF: " + words, "DKIM: " + words, "DMARC: " + words}
	}
	for _, tt := range []struct {
		name    string
		opts    dnstest.Options
		domain  string
		results [4]string // SPF, DKIM, DMARC, reverse DNS
		verdict string
		reasons []string
	}{
		{"answering", dnstest.Options{}, "example.org", [4]string{"pass", "pass", "pass", "pass"}, model.WordPass, nil},
		{"broken DMARC record", dnstest.Options{}, "broken.example", [4]string{"pass", "pass", "permerror", "pass"}, model.WordFail,
			[]string{"DMARC: a broken record (invalid policy for parameter 'p')"}},
		{"silent", dnstest.Options{Drop: func(dns.Question, int) bool { return true }}, "example.org",
			[4]string{"temperror", "temperror", "temperror", "temperror"}, model.WordNotVerified, every("the DNS did not answer")},
		{"refusing", dnstest.Options{Raw: refuseAll}, "example.org",
			[4]string{"temperror", "temperror", "temperror", "temperror"}, model.WordNotVerified, every("the DNS refused the query")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ns := dnstest.Start(t, tt.opts, zone...)
			h := newCLI(t, func(cfg *server.Config) {
				cfg.Resolver = nil
				cfg.DNSServers = []string{ns.Addr}
			})
			inbox := decodeJSON[inboxView](t, h.must("inbox", "create", "--plain", "--json")).EmailAddress
			sendSigned(t, h.srv.SMTPAddr(), key, tt.domain, inbox, "auth "+tt.name)

			list := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", inbox, "--json"))
			if len(list) != 1 {
				t.Fatalf("%d mails, want 1", len(list))
			}
			e := decodeJSON[emailView](t, h.must("email", "show", list[0].ID, "--inbox", inbox, "--json"))
			a := e.AuthResults
			if a.SPF == nil || len(a.DKIM) != 1 || a.DMARC == nil || a.ReverseDNS == nil {
				t.Fatalf("results missing: %+v", a)
			}
			got := [4]string{a.SPF.Result, a.DKIM[0].Result, a.DMARC.Result, a.ReverseDNS.Result}
			if got != tt.results || e.Verdict != tt.verdict || !slices.Equal(e.Reasons, tt.reasons) {
				t.Fatalf("SPF, DKIM, DMARC, reverse DNS = %v, verdict %q, reasons %q; want %v, %q, %q\n%+v %+v %+v",
					got, e.Verdict, e.Reasons, tt.results, tt.verdict, tt.reasons, *a.SPF, a.DKIM, *a.DMARC)
			}
			shown := h.must("email", "show", list[0].ID, "--inbox", inbox).stdout
			if !strings.Contains(shown, "Auth:          "+tt.verdict+" (") {
				t.Errorf("show does not print the verdict %q:\n%s", tt.verdict, shown)
			}
			if len(tt.reasons) > 0 && !strings.Contains(shown, "Why:           "+strings.Join(tt.reasons, "; ")+"\n") {
				t.Errorf("show does not say why %q:\n%s", tt.reasons, shown)
			}
		})
	}
}
