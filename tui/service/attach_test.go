package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/keystore"
	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// TestNewInboxAtTakenAddressAttaches: asking the TUI for a new inbox at
// the address of the server's plain catch-all attaches that inbox (and
// keeps it in the keystore) instead of failing with the server's 409; an
// encrypted inbox there says that its key is missing.
func TestNewInboxAtTakenAddressAttaches(t *testing.T) {
	srv := servertest.Start(t, func(c *server.Config) { c.CatchAll = "qa@sandbox.test" })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.New(srv.URL(), srv.APIKey())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ks, err := keystore.Open(filepath.Join(t.TempDir(), "inboxes", "test"))
	if err != nil {
		t.Fatal(err)
	}
	s := FromClient(c, ks)

	info, err := s.CreateInbox(ctx, client.CreateInboxOptions{EmailAddress: "qa@sandbox.test"})
	if err != nil || info.EmailAddress != "qa@sandbox.test" || info.Encrypted {
		t.Fatalf("attach the catch-all: %+v, %v", info, err)
	}
	if stored, err := ks.Load(); err != nil || len(stored) != 1 || stored[0].Data.EmailAddress != "qa@sandbox.test" {
		t.Fatalf("keystore after attach: %+v, %v", stored, err)
	}

	owner, err := client.New(srv.URL(), srv.APIKey())
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	enc, err := owner.CreateInbox(ctx, client.CreateInboxOptions{Encryption: "encrypted"})
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("From: a@example.org\r\nTo: %s\r\nSubject: sealed\r\n\r\nhi\r\n", enc.Address())
	if err := smtpsend.Send(context.Background(), srv.SMTPAddr(), "a@example.org", []string{enc.Address()}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	if _, err := enc.WaitForEmail(ctx, client.WaitOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateInbox(ctx, client.CreateInboxOptions{EmailAddress: enc.Address()})
	if err == nil || !strings.Contains(err.Error(), enc.Address()+" exists and is encrypted and its key is not in this keystore") {
		t.Fatalf("encrypted inbox at the address: %v", err)
	}
}

// TestNoClientFailsWithNoService: the service of a program without a
// client lists nothing and fails every call with client.ErrNoService,
// which the screens show.
func TestNoClientFailsWithNoService(t *testing.T) {
	s := FromClient(nil, nil)
	ctx := context.Background()
	if got := s.Inboxes(); got != nil {
		t.Fatalf("inboxes without a client: %v", got)
	}
	if changed, vanished, err := s.Rescan(ctx, true); changed || vanished != nil || err != nil {
		t.Fatalf("rescan without a client: %v %v %v", changed, vanished, err)
	}
	_, listErr := s.ListWebhooks(ctx, "")
	_, createErr := s.CreateInbox(ctx, client.CreateInboxOptions{})
	_, subscribeErr := s.Subscribe(nil)
	_, keyErr := s.CheckKey(ctx)
	_, domainErr := s.DefaultDomain(ctx)
	calls := map[string]error{
		"webhooks": listErr, "create": createErr, "subscribe": subscribeErr, "key": keyErr, "domain": domainErr,
		"mark read":  s.MarkRead(ctx, "a@sandbox.test", "e1"),
		"each email": s.EachEmail(ctx, "a@sandbox.test", func(model.Email, error) error { return nil }),
		"import":     func() error { _, err := s.ImportInbox(ctx, "x.json"); return err }(),
		"delete":     s.DeleteInbox(ctx, "a@sandbox.test"),
	}
	for name, err := range calls {
		if !errors.Is(err, client.ErrNoService) {
			t.Errorf("%s without a client: %v, want client.ErrNoService", name, err)
		}
	}
}
