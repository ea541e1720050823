package server_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/miekg/dns"

	"sandview/model"
	"sandview/server"
	"sandview/server/dnsresolve"
	"sandview/server/dnsresolve/dnstest"
	"sandview/server/emailauth"
	"sandview/server/servertest"
)

// authDomain publishes SPF, DKIM, DMARC and reverse DNS for example.org
// with the sender at 127.0.0.1.
func authResolver(t *testing.T) (emailauth.StaticResolver, ed25519.PrivateKey) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return emailauth.StaticResolver{
		TXT: map[string][]string{
			"example.org":                    {"v=spf1 ip4:127.0.0.1 -all"},
			"mail._domainkey.example.org":    {"v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(pub)},
			"_dmarc.example.org":             {"v=DMARC1; p=reject"},
			"other._domainkey.example.org":   {"v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(make([]byte, ed25519.PublicKeySize))},
			"unrelated.example":              {"v=spf1 -all"},
			"_dmarc.unrelated.example":       {"v=DMARC1; p=quarantine"},
			"mail._domainkey.unrelated.test": {"v=DKIM1; p="},
		},
		PTR: map[string][]string{"127.0.0.1": {"mail.example.org."}},
		A:   map[string][]net.IPAddr{"mail.example.org": {{IP: net.IPv4(127, 0, 0, 1)}}},
	}, priv
}

func signMessage(t *testing.T, key ed25519.PrivateKey, selector string, msg []byte) []byte {
	return signWith(t, &dkim.SignOptions{
		Domain: "example.org", Selector: selector, Signer: key,
		HeaderKeys: []string{"From", "To", "Subject", "Date", "Message-ID"},
	}, msg)
}

// signMessageHeaders signs msg with selector "mail", covering headers (a
// name given more often than the message has it oversigns it).
func signMessageHeaders(t *testing.T, key ed25519.PrivateKey, msg []byte, headers ...string) []byte {
	return signWith(t, &dkim.SignOptions{Domain: "example.org", Selector: "mail", Signer: key, HeaderKeys: headers}, msg)
}

func signWith(t *testing.T, opts *dkim.SignOptions, msg []byte) []byte {
	t.Helper()
	var signed bytes.Buffer
	err := dkim.Sign(&signed, bytes.NewReader(msg), opts)
	if err != nil {
		t.Fatalf("dkim sign: %v", err)
	}
	return signed.Bytes()
}

func TestEmailAuthenticationWithTestResolver(t *testing.T) {
	resolver, key := authResolver(t)
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.Resolver = resolver })
	in := a.CreatePlain(nil)
	send := func(msg []byte) model.AuthResults {
		t.Helper()
		if err := servertest.SendMail(srv.SMTPAddr(), "bounce@example.org", []string{in.EmailAddress}, msg); err != nil {
			t.Fatal(err)
		}
		list := a.Emails(in.EmailAddress, true)
		_, parsed := servertest.DecodePlain(t, list[0])
		return parsed.AuthResults
	}

	good := send(signMessage(t, key, "mail", servertest.SimpleMessage(in.EmailAddress, "signed")))
	if good.SPF.Result != "pass" || good.DKIM[0].Result != "pass" || good.DKIM[0].Domain != "example.org" ||
		good.DMARC.Result != "pass" || good.ReverseDNS.Result != "pass" {
		t.Fatalf("signed mail from an authorised sender: %+v %+v %+v %+v", good.SPF, good.DKIM, good.DMARC, good.ReverseDNS)
	}
	if !good.IsPassing() {
		t.Fatal("validation does not pass")
	}

	tampered := signMessage(t, key, "mail", servertest.SimpleMessage(in.EmailAddress, "signed"))
	tampered = bytes.Replace(tampered, []byte("Hello signed"), []byte("Hello forged"), 1)
	bad := send(tampered)
	if bad.DKIM[0].Result != "fail" {
		t.Fatalf("tampered body: DKIM %+v", bad.DKIM)
	}

	wrongKey := send(signMessage(t, key, "other", servertest.SimpleMessage(in.EmailAddress, "wrong key")))
	if wrongKey.DKIM[0].Result != "fail" {
		t.Fatalf("signature with an unpublished key: DKIM %+v", wrongKey.DKIM)
	}

	unsigned := send(servertest.SimpleMessage(in.EmailAddress, "unsigned"))
	if unsigned.DKIM[0].Result != "none" || unsigned.SPF.Result != "pass" {
		t.Fatalf("unsigned mail: SPF %+v DKIM %+v", unsigned.SPF, unsigned.DKIM)
	}
}

func TestEmailAuthWithoutDNSEndsQuickly(t *testing.T) {
	// A resolver that never answers: checks must give up within the budget.
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) {
		cfg.Resolver = hangingResolver{}
		cfg.AuthBudget = 300 * time.Millisecond
	})
	in := a.CreatePlain(nil)
	start := time.Now()
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "offline"))
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("ingest waited %v on DNS, more than the 2s bound", elapsed)
	}
	_, parsed := servertest.DecodePlain(t, a.Emails(in.EmailAddress, true)[0])
	if r := parsed.AuthResults.SPF.Result; r != "temperror" && r != "none" {
		t.Fatalf("SPF without DNS: %q", r)
	}
}

// hangingResolver answers no query until its context ends.
type hangingResolver struct{}

func (hangingResolver) LookupTXT(ctx context.Context, _ string) ([]string, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hangingResolver) LookupMX(ctx context.Context, _ string) ([]*net.MX, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hangingResolver) LookupIPAddr(ctx context.Context, _ string) ([]net.IPAddr, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hangingResolver) LookupAddr(ctx context.Context, _ string) ([]string, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestSilentDNSServer: with --dns naming a server that never answers, the
// server starts, says so once in its log, and mail gets temperror within
// the budget; the DNS cache's counts are logged at debug level.
func TestSilentDNSServer(t *testing.T) {
	deaf := dnstest.Start(t, dnstest.Options{Drop: func(dns.Question, int) bool { return true }})
	var logs servertest.SyncBuffer
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) {
		cfg.Resolver = nil
		cfg.DNSServers = []string{deaf.Addr}
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	in := a.CreatePlain(nil)
	start := time.Now()
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "silent-dns"))
	if took := time.Since(start); took >= dnsresolve.DefaultQueryTimeout {
		t.Fatalf("the mail took %s with a silent DNS server: the checks waited for DNS, not their budget", took)
	}
	_, parsed := servertest.DecodePlain(t, a.Emails(in.EmailAddress, true)[0])
	if spf := parsed.AuthResults.SPF; spf == nil || spf.Result != model.ResultTemperror || !strings.Contains(spf.Details, "dns timeout") {
		t.Fatalf("SPF %+v, want temperror (dns timeout)", spf)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "do not answer") {
		if time.Now().After(deadline) {
			t.Fatalf("no warning about the silent DNS server in the log:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "silent-dns-2"))
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "do not answer"); n != 1 {
		t.Fatalf("the silence was logged %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "msg=\"DNS cache\" stats.hits=") {
		t.Fatalf("no DNS cache counts in the debug log:\n%s", logs.String())
	}
}
