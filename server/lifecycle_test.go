package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/smtp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server"
)

// fakeClock is an adjustable clock for expiry tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestInboxExpiresAfterTTL(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	srv, a := startServer(t, func(cfg *server.Config) {
		cfg.Now = clock.Now
		cfg.SweepInterval = 10 * time.Millisecond
	})
	events, cancel := srv.Events().Subscribe(64)
	defer cancel()
	short := a.createPlain(map[string]any{"ttl": 60})
	long := a.createPlain(map[string]any{"ttl": 3600})
	if want := clock.Now().Add(time.Minute); !short.ExpiresAt.Equal(want) {
		t.Fatalf("expiresAt %v, want %v", short.ExpiresAt, want)
	}
	mustSend(t, srv, short.EmailAddress, simpleMessage(short.EmailAddress, "doomed"))
	id := a.emails(short.EmailAddress, false)[0].ID

	clock.Advance(61 * time.Second)
	ev := waitEvent(t, events, func(ev server.Event) bool { return ev.Type == model.EventEmailDeleted })
	if ev.Reason != model.DeleteReasonTTL || ev.EmailID != id || ev.Inbox.Address != short.EmailAddress {
		t.Fatalf("deleted event %+v", ev)
	}
	a.expectError(http.StatusNotFound, "GET", "/api/inboxes/"+short.EmailAddress+"/emails", nil, "Inbox not found")
	err := sendMail(srv.SMTPAddr(), "s@example.org", []string{short.EmailAddress}, simpleMessage(short.EmailAddress, "late"))
	if smtpCode(err) != 550 {
		t.Fatalf("mail to an expired inbox: %v, want 550", err)
	}
	if a.sync(long.EmailAddress).EmailCount != 0 {
		t.Fatal("long-lived inbox changed")
	}
}

func TestEvictionKeepsNewestEmails(t *testing.T) {
	srv, a := startServer(t, func(cfg *server.Config) { cfg.MaxEmailsPerInbox = 3 })
	events, cancel := srv.Events().Subscribe(256)
	defer cancel()
	in := a.createPlain(nil)
	for i := range 5 {
		mustSend(t, srv, in.EmailAddress, simpleMessage(in.EmailAddress, fmt.Sprintf("m%d", i)))
	}
	var subjects []string
	for _, rec := range a.emails(in.EmailAddress, false) {
		meta, _ := decodePlain(t, rec)
		subjects = append(subjects, meta.Subject)
	}
	if fmt.Sprint(subjects) != "[m4 m3 m2]" {
		t.Fatalf("kept %v, want the three newest", subjects)
	}
	for range 2 {
		ev := waitEvent(t, events, func(ev server.Event) bool { return ev.Type == model.EventEmailDeleted })
		if ev.Reason != model.DeleteReasonEviction {
			t.Fatalf("deleted event %+v", ev)
		}
	}
}

func TestEvictionByTotalSize(t *testing.T) {
	srv, a := startServer(t, func(cfg *server.Config) { cfg.MaxStoreBytes = 6000 })
	one := a.createPlain(nil)
	two := a.createPlain(nil)
	body := func(to, subject string) []byte {
		msg := simpleMessage(to, subject)
		return append(msg, make([]byte, 1000)...)
	}
	mustSend(t, srv, one.EmailAddress, body(one.EmailAddress, "old"))
	for i := range 4 {
		mustSend(t, srv, two.EmailAddress, body(two.EmailAddress, fmt.Sprintf("new%d", i)))
	}
	if n := a.sync(one.EmailAddress).EmailCount; n != 0 {
		t.Fatalf("oldest email across inboxes was not evicted (%d left)", n)
	}
	if n := a.sync(two.EmailAddress).EmailCount; n == 0 {
		t.Fatal("newest emails were evicted")
	}
}

func TestRestartWithDataDirKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	start := func() (*server.Server, *api) {
		srv, err := server.Start(context.Background(), server.Config{
			HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", APIKey: "k", DataDir: dir,
		})
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		return srv, newAPI(t, srv)
	}
	srv, a := start()
	plain := a.createPlain(map[string]any{"emailAddress": "keep@sandbox.test"})
	enc := a.createEncrypted(nil)
	mustSend(t, srv, plain.EmailAddress, simpleMessage(plain.EmailAddress, "first"))
	mustSend(t, srv, plain.EmailAddress, simpleMessage(plain.EmailAddress, "second"))
	mustSend(t, srv, enc.EmailAddress, simpleMessage(enc.EmailAddress, "secret"))
	list := a.emails(plain.EmailAddress, true)
	a.expect(http.StatusNoContent, "PATCH", "/api/inboxes/"+plain.EmailAddress+"/emails/"+list[1].ID+"/read", nil, nil)
	list[1].IsRead = true
	sigPk := srv.ServerSigPk()
	syncBefore := a.sync(plain.EmailAddress)
	if err := srv.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	srv, a = start()
	defer srv.Close()
	if srv.ServerSigPk() != sigPk {
		t.Fatal("server signing key changed across restart")
	}
	after := a.emails(plain.EmailAddress, true)
	if fmt.Sprint(after) != fmt.Sprint(list) {
		t.Fatalf("emails after restart\n%+v\nwant\n%+v", after, list)
	}
	if a.sync(plain.EmailAddress) != syncBefore {
		t.Fatal("sync status changed across restart")
	}
	// The encrypted inbox still opens and still receives.
	mustSend(t, srv, enc.EmailAddress, simpleMessage(enc.EmailAddress, "after restart"))
	encList := a.emails(enc.EmailAddress, false)
	if len(encList) != 2 {
		t.Fatalf("encrypted inbox holds %d emails, want 2", len(encList))
	}
	pinned, _ := crypto.DecodeBase64URL(sigPk)
	opener, _ := crypto.NewOpener(enc.keys.SecretKey, pinned, "")
	for _, rec := range encList {
		if _, err := opener.Open(rec.EncryptedMetadata); err != nil {
			t.Fatalf("open after restart: %v", err)
		}
	}
	if encList[0].ID <= encList[1].ID {
		t.Fatalf("ids after restart do not sort newest first: %s, %s", encList[0].ID, encList[1].ID)
	}
}

func TestConcurrentSendersLoseNothing(t *testing.T) {
	srv, a := startServer(t)
	inboxes := []model.Inbox{a.createPlain(nil), a.createEncrypted(nil).Inbox}
	const senders, perSender = 50, 4
	var failures atomic.Int32
	var wg sync.WaitGroup
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := smtp.Dial(srv.SMTPAddr())
			if err != nil {
				failures.Add(1)
				return
			}
			defer c.Close()
			for j := range perSender {
				to := inboxes[(i+j)%2].EmailAddress
				if err := sendOn(c, "s@example.org", []string{to}, simpleMessage(to, fmt.Sprintf("s%d-%d", i, j))); err != nil {
					failures.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := failures.Load(); n != 0 {
		t.Fatalf("%d sends failed", n)
	}
	seen := map[string]bool{}
	for _, in := range inboxes {
		for _, rec := range a.emails(in.EmailAddress, false) {
			seen[rec.ID] = true
		}
	}
	if len(seen) != senders*perSender {
		t.Fatalf("stored %d distinct emails, want %d", len(seen), senders*perSender)
	}
}
