package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"sandview/server"
	"sandview/server/dnsresolve/dnstest"
)

// TestEmailExpectVerdict: with a DNS server publishing SPF, DKIM and
// DMARC, a signed mail passes --verdict pass; one whose DMARC record does
// not parse fails the default verdict (not "fail"), saying why.
func TestEmailExpectVerdict(t *testing.T) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ns := dnstest.Start(t, dnstest.Options{}, authZone(pub)...)
	h := newCLI(t, func(cfg *server.Config) {
		cfg.Resolver = nil
		cfg.DNSServers = []string{ns.Addr}
	})
	inbox := decodeJSON[inboxView](t, h.must("inbox", "create", "--plain", "--json")).EmailAddress
	sendSigned(t, h.srv.SMTPAddr(), key, "example.org", inbox, "signed")
	sendSigned(t, h.srv.SMTPAddr(), key, "broken.example", inbox, "broken")
	h.must("wait", "--inbox", inbox, "--count", "2", "--timeout", "20s")
	ids := map[string]string{}
	for _, e := range decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", inbox, "--json")) {
		ids[e.Subject] = e.ID
	}
	if got := outcomes(expectReport(t, h, 1, ids["signed"], "--inbox", inbox, "--verdict", "pass")); got["verdict"] != "pass" {
		t.Errorf("--verdict pass on a signed mail: %v", got)
	}
	got := outcomes(expectReport(t, h, 1, ids["broken"], "--inbox", inbox))
	if want := "fail: fail (DMARC: a broken record"; !strings.HasPrefix(got["verdict"], want) {
		t.Errorf("the default verdict on a DMARC permerror: %q, want %q…", got["verdict"], want)
	}
}
