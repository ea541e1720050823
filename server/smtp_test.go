package server_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/emailauth"
	"sandview/server/servertest"
)

func TestSTARTTLSOnlyWithCertificate(t *testing.T) {
	plainSrv, _ := servertest.StartAPI(t)
	c, err := smtp.Dial(plainSrv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Hello("client.example"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		t.Fatal("STARTTLS advertised without a certificate")
	}
	for _, ext := range []string{"8BITMIME", "SMTPUTF8", "PIPELINING", "SIZE"} {
		if ok, _ := c.Extension(ext); !ok {
			t.Errorf("%s not advertised", ext)
		}
	}
	c.Close()

	tlsSrv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SMTP.TLSConfig, _ = servertest.SelfSignedTLS(t) })
	in := a.CreatePlain(nil)
	c, err = smtp.DialStartTLS(tlsSrv.SMTPAddr(), &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"})
	if err != nil {
		t.Fatalf("STARTTLS: %v", err)
	}
	defer c.Close()
	if err := smtpsend.SendOn(c, "s@example.org", []string{in.EmailAddress}, servertest.SimpleMessage(in.EmailAddress, "over tls")); err != nil {
		t.Fatal(err)
	}
	a.WaitForCount(in.EmailAddress, 1)
}

func TestSMTPUTF8AndEightBitMail(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	c, err := dialPipe(srv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.text.PrintfLine("MAIL FROM:<jürgen@bücher.example> SMTPUTF8 BODY=8BITMIME"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.text.ReadResponse(250); err != nil {
		t.Fatalf("MAIL with SMTPUTF8: %v", err)
	}
	if err := c.text.PrintfLine("RCPT TO:<%s>", in.EmailAddress); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.text.ReadResponse(250); err != nil {
		t.Fatal(err)
	}
	id, err := c.text.Cmd("DATA")
	if err != nil {
		t.Fatal(err)
	}
	c.text.StartResponse(id)
	_, _, err = c.text.ReadResponse(354)
	c.text.EndResponse(id)
	if err != nil {
		t.Fatal(err)
	}
	dw := c.text.DotWriter()
	fmt.Fprintf(dw, "From: Jürgen <jürgen@bücher.example>\r\nTo: %s\r\nSubject: Bücher für dich\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nSchöne Grüße\r\n", in.EmailAddress)
	if err := dw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.text.ReadResponse(250); err != nil {
		t.Fatal(err)
	}
	meta, parsed := servertest.DecodePlain(t, a.Emails(in.EmailAddress, true)[0])
	if meta.Subject != "Bücher für dich" || !strings.Contains(parsed.Text, "Schöne Grüße") || !strings.Contains(meta.From, "jürgen@bücher.example") {
		t.Fatalf("metadata %+v text %q", meta, parsed.Text)
	}
}

func TestSMTPLineLimit(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreatePlain(nil)
	msg := append(servertest.SimpleMessage(in.EmailAddress, "long"), []byte(strings.Repeat("x", 3000)+"\r\n")...)
	err := servertest.SendMail(srv.SMTPAddr(), "s@example.org", []string{in.EmailAddress}, msg)
	if code := smtpsend.Code(err); code != 500 {
		t.Fatalf("line over the limit: %v, want SMTP 500", err)
	}
	if n := a.Sync(in.EmailAddress).EmailCount; n != 0 {
		t.Fatalf("%d emails stored", n)
	}
}

func TestShutdownEndsStreamsAndIsIdempotent(t *testing.T) {
	srv, err := server.Start(context.Background(), server.Config{HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Options: core.Options{APIKey: "k", Resolver: &emailauth.StaticResolver{}}})
	if err != nil {
		t.Fatal(err)
	}
	a := servertest.NewClient(t, srv)
	in := a.CreatePlain(nil)
	stream := servertest.OpenStream(t, srv, in.InboxHash)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if _, err := stream.Next(); err == nil {
		t.Fatal("stream still open after shutdown")
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("close after shutdown: %v", err)
	}
	if _, err := smtp.Dial(srv.SMTPAddr()); err == nil {
		t.Fatal("SMTP still accepting after shutdown")
	}
}

func TestStartContextCancelStopsServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.Start(ctx, server.Config{HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Options: core.Options{APIKey: "k", Resolver: &emailauth.StaticResolver{}}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := smtp.Dial(srv.SMTPAddr())
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("server still accepting after its context was cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStartRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]server.Config{
		"no key":       {},
		"bad policy":   {Options: core.Options{APIKey: "k", EncryptionPolicy: "sometimes"}},
		"bad domain":   {Options: core.Options{APIKey: "k", Domains: []string{"not a domain"}}},
		"bad ttl":      {Options: core.Options{APIKey: "k", DefaultTTL: time.Hour, MaxTTL: time.Minute}},
		"bad address":  {HTTPAddr: "256.0.0.1:1", Options: core.Options{APIKey: "k"}},
		"bad data dir": {DataDir: "/dev/null/impossible", Options: core.Options{APIKey: "k"}},
	} {
		if srv, err := server.Start(context.Background(), cfg); err == nil {
			srv.Close()
			t.Errorf("%s: started", name)
		}
	}
}

func TestSecretsAreSavedPrivately(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	key, path, created, err := server.LoadOrCreateAPIKey(dir)
	if err != nil || !created || key == "" {
		t.Fatalf("create: %q %v %v", key, created, err)
	}
	again, _, created, err := server.LoadOrCreateAPIKey(dir)
	if err != nil || created || again != key {
		t.Fatalf("load: same key %v, created %v, %v", again == key, created, err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		info, err := os.Stat(p)
		if err != nil || info.Mode().Perm() != want {
			t.Fatalf("%s: mode %v (%v), want %v", p, info.Mode().Perm(), err, want)
		}
	}
	data := filepath.Join(t.TempDir(), "data")
	srv, err := server.Start(context.Background(), server.Config{HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", DataDir: data, Options: core.Options{APIKey: "k", Resolver: &emailauth.StaticResolver{}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	entries, _ := os.ReadDir(data)
	for _, e := range entries {
		info, _ := e.Info()
		if info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is readable by others: %v", e.Name(), info.Mode().Perm())
		}
	}
	if len(entries) < 2 {
		t.Fatalf("data dir holds %d files, want the store and the signing key", len(entries))
	}
}
