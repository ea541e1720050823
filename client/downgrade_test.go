package client_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/tamper"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server/servertest"
)

// The no-downgrade rule: a tampering proxy in front of the real server
// rewrites its answers. For an encrypted inbox, plain fields in place of
// (or next to) the signed, encrypted ones are refused with the one generic
// DecryptionError; nothing forged is ever returned as mail.

// downgradeSetup is a server, a tampering proxy in front of it, a client
// through the proxy, and an inbox holding one mail.
type downgradeSetup struct {
	proxy *tamper.Proxy
	c     *client.Client
	in    *client.Inbox
	id    string
}

func newDowngradeSetup(t *testing.T, encryption string, opts ...client.Option) downgradeSetup {
	t.Helper()
	srv := servertest.Start(t)
	proxy := tamper.Start(t, srv.URL())
	c := clienttest.NewClient(t, proxy.URL, opts...)
	in := clienttest.CreateInbox(t, c, encryption)
	id, err := c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: in.Address(), Subject: "genuine", Text: "genuine body"})
	if err != nil {
		t.Fatal(err)
	}
	return downgradeSetup{proxy: proxy, c: c, in: in, id: id}
}

// assertRefused checks that err is the generic DecryptionError.
func assertRefused(t *testing.T, what string, err error) {
	t.Helper()
	var decryption *client.DecryptionError
	if !errors.As(err, &decryption) {
		t.Fatalf("%s: error %v (%T), want a *client.DecryptionError", what, err, err)
	}
	if !strings.HasSuffix(err.Error(), "decryption failed") {
		t.Fatalf("%s: error %q is not the one generic message", what, err)
	}
}

// assertNotForged checks that nothing of the forgery reached e.
func assertNotForged(t *testing.T, e model.Email) {
	t.Helper()
	if e.Problem != client.ProblemDecryptionFailed {
		t.Fatalf("email %s: problem %q, want %q", e.ID, e.Problem, client.ProblemDecryptionFailed)
	}
	if e.Subject != "" || e.From != "" || e.Text != "" || e.HTML != "" || e.AuthResults.SPF != nil || e.HasContent {
		t.Fatalf("forged content shown as mail: %+v", e)
	}
}

func TestDowngradeOfEncryptedInboxIsRefused(t *testing.T) {
	for _, mode := range []tamper.Mode{tamper.Downgrade, tamper.PlainAlongside} {
		t.Run(fmt.Sprint("mode", int(mode)), func(t *testing.T) {
			s := newDowngradeSetup(t, model.EncryptionEncrypted)
			ctx := clienttest.Ctx(t)
			// Untampered, the mail opens: the proxy itself is transparent.
			if e, err := s.in.Email(ctx, s.id); err != nil || e.Subject != "genuine" {
				t.Fatalf("through the untouched proxy: %q, %v", e.Subject, err)
			}
			s.proxy.SetMode(mode)

			for _, content := range []bool{false, true} {
				emails, err := s.in.Emails(ctx, client.ListOptions{IncludeContent: content})
				assertRefused(t, "list", err)
				if len(emails) != 1 || emails[0].ID != s.id {
					t.Fatalf("list: %d emails, want the one refused email %s", len(emails), s.id)
				}
				assertNotForged(t, emails[0])
			}
			e, err := s.in.Email(ctx, s.id)
			assertRefused(t, "get", err)
			assertNotForged(t, e)
			raw, err := s.in.Raw(ctx, s.id)
			assertRefused(t, "raw", err)
			if len(raw) != 0 {
				t.Fatalf("raw: %q returned with the refusal", raw)
			}
			if s.proxy.Rewritten() < 4 {
				t.Fatalf("the proxy rewrote %d answers; the test did not tamper", s.proxy.Rewritten())
			}
		})
	}
}

// A plain inbox has no key: an encrypted payload in its records cannot be
// checked and is refused the same way.
func TestEncryptedFieldsOnPlainInboxAreRefused(t *testing.T) {
	s := newDowngradeSetup(t, model.EncryptionPlain)
	ctx := clienttest.Ctx(t)
	if e, err := s.in.Email(ctx, s.id); err != nil || e.Subject != "genuine" {
		t.Fatalf("through the untouched proxy: %q, %v", e.Subject, err)
	}
	s.proxy.SetMode(tamper.Upgrade)
	emails, err := s.in.Emails(ctx, client.ListOptions{IncludeContent: true})
	assertRefused(t, "list", err)
	if len(emails) != 1 || emails[0].Problem != client.ProblemDecryptionFailed {
		t.Fatalf("list: %+v", emails)
	}
	_, err = s.in.Email(ctx, s.id)
	assertRefused(t, "get", err)
	_, err = s.in.Raw(ctx, s.id)
	assertRefused(t, "raw", err)
}

func TestDowngradedStreamEventIsDeliveredRefused(t *testing.T) {
	var mu sync.Mutex
	var syncErrs []error
	s := newDowngradeSetup(t, model.EncryptionEncrypted, append(clienttest.Fast(client.StrategySSE),
		client.WithOnSyncError(func(err error) {
			mu.Lock()
			syncErrs = append(syncErrs, err)
			mu.Unlock()
		}))...)
	got := clienttest.NewCollector()
	sub, err := s.in.OnNewEmail(got.Add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	waitLive(t, s.c)
	s.proxy.SetMode(tamper.Downgrade)
	id, err := s.c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: s.in.Address(), Subject: "second"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		emails, _ := got.Snapshot()
		if len(emails) > 0 {
			if len(emails) != 1 || emails[0].ID != id {
				t.Fatalf("delivered %+v, want only the refused %s", emails, id)
			}
			assertNotForged(t, emails[0])
			break
		}
		select {
		case <-got.Signal():
		case <-deadline:
			t.Fatal("the tampered notification was not delivered as a refused email")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, err := range syncErrs {
		var decryption *client.DecryptionError
		if errors.As(err, &decryption) {
			return
		}
	}
	t.Fatalf("the refusal was not reported to OnSyncError: %v", syncErrs)
}

// waitLive waits until the client's event stream is open.
func waitLive(t *testing.T, c *client.Client) {
	t.Helper()
	live := make(chan struct{}, 1)
	sub := c.OnStateChange(func(s client.ConnState) {
		if s.Kind == client.StateLive {
			select {
			case live <- struct{}{}:
			default:
			}
		}
	})
	defer sub.Unsubscribe()
	if c.State().Kind == client.StateLive {
		return
	}
	select {
	case <-live:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream did not open")
	}
}

func TestWaitHaltsOnDowngradedMail(t *testing.T) {
	t.Run("already there", func(t *testing.T) {
		s := newDowngradeSetup(t, model.EncryptionEncrypted)
		s.proxy.SetMode(tamper.Downgrade)
		_, err := s.in.WaitForEmail(clienttest.Ctx(t), client.WaitOptions{Timeout: 10 * time.Second})
		assertRefused(t, "wait", err)
	})
	t.Run("arriving", func(t *testing.T) {
		s := newDowngradeSetup(t, model.EncryptionEncrypted, clienttest.Fast(client.StrategySSE)...)
		// The genuine mail is not what the wait is for.
		opts := client.WaitOptions{Subject: client.Exactly("second"), Timeout: 10 * time.Second}
		done := make(chan error, 1)
		go func() {
			_, err := s.in.WaitForEmail(clienttest.Ctx(t), opts)
			done <- err
		}()
		waitLive(t, s.c)
		s.proxy.SetMode(tamper.Downgrade)
		if _, err := s.c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: s.in.Address(), Subject: "second"}); err != nil {
			t.Fatal(err)
		}
		assertRefused(t, "wait", <-done)
	})
}
