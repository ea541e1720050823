package server_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/client/smtpsend"
	"sandview/crypto"
	"sandview/model"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/emailauth"
	"sandview/server/servertest"
	"sandview/server/store"
	"sandview/server/store/bolt"
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
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) {
		cfg.Now = clock.Now
		cfg.SweepInterval = 10 * time.Millisecond
	})
	events, cancel := srv.Events().Subscribe(64)
	defer cancel()
	short := a.CreatePlain(map[string]any{"ttl": 60})
	long := a.CreatePlain(map[string]any{"ttl": 3600})
	if want := clock.Now().Add(time.Minute); !short.ExpiresAt.Equal(want) {
		t.Fatalf("expiresAt %v, want %v", short.ExpiresAt, want)
	}
	servertest.MustSend(t, srv, short.EmailAddress, servertest.SimpleMessage(short.EmailAddress, "doomed"))
	id := a.Emails(short.EmailAddress, false)[0].ID

	clock.Advance(61 * time.Second)
	ev := waitEvent(t, events, func(ev server.Event) bool { return ev.Type == model.EventEmailDeleted })
	if ev.Reason != model.DeleteReasonTTL || ev.EmailID != id || ev.Inbox.Address != short.EmailAddress {
		t.Fatalf("deleted event %+v", ev)
	}
	a.ExpectError(http.StatusNotFound, "GET", "/api/inboxes/"+short.EmailAddress+"/emails", nil, "Inbox not found")
	err := servertest.SendMail(srv.SMTPAddr(), "s@example.org", []string{short.EmailAddress}, servertest.SimpleMessage(short.EmailAddress, "late"))
	if smtpsend.Code(err) != 550 {
		t.Fatalf("mail to an expired inbox: %v, want 550", err)
	}
	if a.Sync(long.EmailAddress).EmailCount != 0 {
		t.Fatal("long-lived inbox changed")
	}
}

// TestEvictionKeepsNewestEmails: beyond the per-inbox limit the sweep
// evicts the oldest emails (email.deleted, reason eviction), keeping the
// newest.
func TestEvictionKeepsNewestEmails(t *testing.T) {
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.MaxEmailsPerInbox = 3 })
	events, cancel := srv.Events().Subscribe(256)
	defer cancel()
	in := a.CreatePlain(nil)
	for i := range 5 {
		servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, fmt.Sprintf("m%d", i)))
	}
	for range 2 {
		ev := waitEvent(t, events, func(ev server.Event) bool { return ev.Type == model.EventEmailDeleted })
		if ev.Reason != model.DeleteReasonEviction {
			t.Fatalf("deleted event %+v", ev)
		}
	}
	var subjects []string
	for _, rec := range a.Emails(in.EmailAddress, false) {
		meta, _ := servertest.DecodePlain(t, rec)
		subjects = append(subjects, meta.Subject)
	}
	if fmt.Sprint(subjects) != "[m4 m3 m2]" {
		t.Fatalf("kept %v, want the three newest", subjects)
	}
}

// TestEvictionByTotalSize: beyond the bytes of all inboxes the sweep
// evicts the oldest emails of all, whichever inbox holds them.
func TestEvictionByTotalSize(t *testing.T) {
	srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.MaxStoreBytes = 6000 })
	one := a.CreatePlain(nil)
	two := a.CreatePlain(nil)
	body := func(to, subject string) []byte { // about 2,500 stored bytes
		msg := servertest.SimpleMessage(to, subject)
		return append(msg, strings.Repeat(strings.Repeat("x", 70)+"\r\n", 14)...)
	}
	servertest.MustSend(t, srv, one.EmailAddress, body(one.EmailAddress, "old"))
	for i := range 4 {
		servertest.MustSend(t, srv, two.EmailAddress, body(two.EmailAddress, fmt.Sprintf("new%d", i)))
	}
	waitFor(t, "the oldest email across inboxes to be evicted", func() bool { return a.Sync(one.EmailAddress).EmailCount == 0 })
	if n := a.Sync(two.EmailAddress).EmailCount; n == 0 {
		t.Fatal("newest emails were evicted")
	}
}

func TestRestartWithDataDirKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	start := func() (*server.Server, *api) {
		srv, err := server.Start(context.Background(), server.Config{
			HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", DataDir: dir, Options: core.Options{APIKey: "k", Resolver: &emailauth.StaticResolver{}},
		})
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		return srv, servertest.NewClient(t, srv)
	}
	srv, a := start()
	plain := a.CreatePlain(map[string]any{"emailAddress": "keep@sandbox.test"})
	enc := a.CreateEncrypted(nil)
	servertest.MustSend(t, srv, plain.EmailAddress, servertest.SimpleMessage(plain.EmailAddress, "first"))
	servertest.MustSend(t, srv, plain.EmailAddress, servertest.SimpleMessage(plain.EmailAddress, "second"))
	servertest.MustSend(t, srv, enc.EmailAddress, servertest.SimpleMessage(enc.EmailAddress, "secret"))
	list := a.Emails(plain.EmailAddress, true)
	a.Expect(http.StatusNoContent, "PATCH", "/api/inboxes/"+plain.EmailAddress+"/emails/"+list[1].ID+"/read", nil, nil)
	list[1].IsRead = true
	sigPk := srv.ServerSigPk()
	syncBefore := a.Sync(plain.EmailAddress)
	if err := srv.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	srv, a = start()
	defer srv.Close()
	if srv.ServerSigPk() != sigPk {
		t.Fatal("server signing key changed across restart")
	}
	after := a.Emails(plain.EmailAddress, true)
	if fmt.Sprint(after) != fmt.Sprint(list) {
		t.Fatalf("emails after restart\n%+v\nwant\n%+v", after, list)
	}
	if a.Sync(plain.EmailAddress) != syncBefore {
		t.Fatal("sync status changed across restart")
	}
	// The encrypted inbox still opens and still receives.
	servertest.MustSend(t, srv, enc.EmailAddress, servertest.SimpleMessage(enc.EmailAddress, "after restart"))
	encList := a.Emails(enc.EmailAddress, false)
	if len(encList) != 2 {
		t.Fatalf("encrypted inbox holds %d emails, want 2", len(encList))
	}
	pinned, _ := crypto.DecodeBase64URL(sigPk)
	opener, _ := crypto.NewOpener(enc.Keys.SecretKey, pinned, "")
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
	srv, a := servertest.StartAPI(t)
	inboxes := []model.Inbox{a.CreatePlain(nil), a.CreateEncrypted(nil).Inbox}
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
				if err := smtpsend.SendOn(c, "s@example.org", []string{to}, servertest.SimpleMessage(to, fmt.Sprintf("s%d-%d", i, j))); err != nil {
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
		for _, rec := range a.Emails(in.EmailAddress, false) {
			seen[rec.ID] = true
		}
	}
	if len(seen) != senders*perSender {
		t.Fatalf("stored %d distinct emails, want %d", len(seen), senders*perSender)
	}
}

// TestIDsFollowTheStoredOnes: a start on a data directory issues email
// ids after the largest stored one, even one from a clock far ahead of
// this one (the store's last id, read at start, not a walk of its mail).
func TestIDsFollowTheStoredOnes(t *testing.T) {
	dir := t.TempDir()
	const address = "ahead@sandbox.test"
	db, err := bolt.Open(filepath.Join(dir, "sandview.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	inbox := store.Inbox{Address: address, Hash: crypto.PlainInboxHash(address), EmailAuth: true, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	ahead := fmt.Sprintf("%016x", uint64(1)<<62) + "00000000"
	stored := &store.Email{ID: ahead, InboxHash: inbox.Hash, ReceivedAt: now, Metadata: []byte(`{"id":"` + ahead + `","from":"","to":[],"subject":"ahead","receivedAt":""}`), Parsed: []byte(`{}`), Raw: []byte("Subject: ahead\r\n\r\n")}
	if err := db.PutInbox(ctx, inbox); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(ctx, store.Batch{Put: []*store.Email{stored}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	srv, err := server.Start(ctx, server.Config{HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", DataDir: dir, Options: core.Options{APIKey: "k", Resolver: &emailauth.StaticResolver{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	a := servertest.NewClient(t, srv)
	servertest.MustSend(t, srv, address, servertest.SimpleMessage(address, "new"))
	list := a.Emails(address, false)
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	if len(ids) != 2 || ids[1] != ahead || ids[0] <= ahead {
		t.Fatalf("ids %v (newest first), want a new one after %s", ids, ahead)
	}
}
