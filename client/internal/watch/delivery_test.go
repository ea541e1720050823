package watch_test

// Delivery tests against the real embedded server: the event stream,
// polling and subscriptions (faults: fault_test.go; inboxes gone: gone_test.go).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/client"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server/servertest"
)

func TestStreamDeliversNewMailOnceWithContent(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategySSE)...)
	st := clienttest.WatchStates(t, c)
	for _, enc := range []string{model.EncryptionEncrypted, model.EncryptionPlain} {
		t.Run(enc, func(t *testing.T) {
			in := clienttest.CreateInbox(t, c, enc)
			clienttest.MailTo(t, srv.SMTPAddr(), in.Address(), "already there")
			clienttest.WaitForCount(t, in, 1)
			got := clienttest.NewCollector()
			sub, err := in.OnNewEmail(got.Add)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe()
			st.WaitFor(t, client.StateLive, 0, 5*time.Second)
			clienttest.MailTo(t, srv.SMTPAddr(), in.Address(), "fresh "+enc)
			emails := got.WaitSubjects(t, 10*time.Second, "fresh "+enc)
			e := emails[0]
			if !e.HasContent || !strings.Contains(e.Text, "body of fresh") || e.Problem != "" || e.From == "" {
				t.Fatalf("delivered email lacks content: %+v", e)
			}
			clienttest.MailTo(t, srv.SMTPAddr(), in.Address(), "second "+enc)
			got.WaitSubjects(t, 10*time.Second, "second "+enc)
			emails, _ = got.Snapshot()
			for _, e := range emails {
				if e.Subject == "already there" {
					t.Fatal("an email that existed before subscribing was delivered")
				}
			}
			got.ExactlyOnce(t)
		})
	}
}

func TestPollingDeliversTestEmails(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategyPolling)...)
	st := clienttest.WatchStates(t, c)
	in := clienttest.CreateInbox(t, c, "")
	got := clienttest.NewCollector()
	sub, err := in.OnNewEmail(got.Add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if s := st.WaitFor(t, client.StatePolling, 0, 5*time.Second); s.Interval != 30*time.Millisecond {
		t.Fatalf("polling state interval %s", s.Interval)
	}
	for i := range 3 {
		if _, err := c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: in.Address(), Subject: fmt.Sprintf("polled %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	got.WaitSubjects(t, 10*time.Second, "polled 0", "polled 1", "polled 2")
	got.ExactlyOnce(t)
	for _, k := range st.Kinds() {
		if k == client.StateLive || k == client.StateConnecting {
			t.Fatalf("the polling strategy touched the stream: %v", st.Kinds())
		}
	}
}

func TestUnsubscribeStopsDeliveryAndIsIdempotent(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategyAuto)...)
	in := clienttest.CreateInbox(t, c, "")
	gone, kept := clienttest.NewCollector(), clienttest.NewCollector()
	subGone, err := in.OnNewEmail(gone.Add)
	if err != nil {
		t.Fatal(err)
	}
	subKept, err := in.OnNewEmail(kept.Add)
	if err != nil {
		t.Fatal(err)
	}
	defer subKept.Unsubscribe()
	c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: in.Address(), Subject: "one"})
	gone.WaitSubjects(t, 10*time.Second, "one")
	subGone.Unsubscribe()
	subGone.Unsubscribe()
	if _, err := c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: in.Address(), Subject: "two"}); err != nil {
		t.Fatal(err)
	}
	// The other subscription proves "two" was delivered.
	kept.WaitSubjects(t, 10*time.Second, "one", "two")
	if emails, _ := gone.Snapshot(); len(emails) != 1 {
		t.Fatalf("delivered after unsubscribe: %d emails", len(emails))
	}
}

func TestWatchChannelClosesWithContextAndClose(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategyAuto)...)
	in := clienttest.CreateInbox(t, c, model.EncryptionPlain)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := in.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: in.Address(), Subject: "via channel"})
	select {
	case e := <-ch:
		if e.Subject != "via channel" {
			t.Fatalf("got %q", e.Subject)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing on the channel")
	}
	cancel()
	waitClosed(t, ch)

	ch2, err := in.Watch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, ch2)
	if _, err := in.Watch(context.Background()); !errors.Is(err, client.ErrClientClosed) {
		t.Fatalf("Watch after Close: %v", err)
	}
	if _, err := in.OnNewEmail(func(model.Email) {}); !errors.Is(err, client.ErrClientClosed) {
		t.Fatalf("OnNewEmail after Close: %v", err)
	}
	if _, err := c.WatchInboxes(nil); !errors.Is(err, client.ErrClientClosed) {
		t.Fatalf("WatchInboxes after Close: %v", err)
	}
	if got := c.State().Kind; got != client.StateClosed {
		t.Fatalf("state after Close: %s", got)
	}
}

func waitClosed(t *testing.T, ch <-chan model.Email) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("channel not closed")
		}
	}
}

func TestMonitorSeveralInboxesAndEmptyList(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategySSE)...)
	empty, err := c.WatchInboxes(nil)
	if err != nil {
		t.Fatal(err)
	}
	empty.Unsubscribe()
	empty.Unsubscribe()

	a, b := clienttest.CreateInbox(t, c, model.EncryptionEncrypted), clienttest.CreateInbox(t, c, model.EncryptionPlain)
	m, err := c.WatchInboxes([]*client.Inbox{a, b})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	var mu sync.Mutex
	byInbox := map[string]string{}
	got := clienttest.NewCollector()
	m.On(func(in *client.Inbox, e model.Email) {
		mu.Lock()
		byInbox[e.Subject] = in.Address()
		mu.Unlock()
		got.Add(e)
	})
	clienttest.MailTo(t, srv.SMTPAddr(), a.Address(), "to a")
	c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: b.Address(), Subject: "to b"})
	got.WaitSubjects(t, 10*time.Second, "to a", "to b")
	mu.Lock()
	defer mu.Unlock()
	if byInbox["to a"] != a.Address() || byInbox["to b"] != b.Address() {
		t.Fatalf("events attributed to the wrong inbox: %v", byInbox)
	}
}

func TestWatchAllFollowsLoadedInboxes(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategyAuto)...)
	first := clienttest.CreateInbox(t, c, "")
	m, err := c.WatchAll()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	got := clienttest.NewCollector()
	m.On(func(_ *client.Inbox, e model.Email) { got.Add(e) })
	later := clienttest.CreateInbox(t, c, model.EncryptionEncrypted)
	// The later inbox is seeded in the background; mail sent once it is
	// watched must arrive. Keep sending until one does (seeding is async).
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: later.Address(), Subject: fmt.Sprintf("later %d", i)})
		select {
		case <-got.Signal():
		case <-time.After(300 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("mail of an inbox created after WatchAll never arrived")
			}
			continue
		}
		break
	}
	c.SendTestEmail(clienttest.Ctx(t), model.TestEmailRequest{To: first.Address(), Subject: "first"})
	got.WaitSubjects(t, 10*time.Second, "first")
	got.ExactlyOnce(t)
}

func TestSyncErrorsAreReported(t *testing.T) {
	srv := servertest.Start(t)
	errs := make(chan error, 16)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategyPolling)...)
	sub := c.OnSyncError(func(err error) {
		select {
		case errs <- err:
		default:
		}
	})
	defer sub.Unsubscribe()
	in := clienttest.CreateInbox(t, c, "")
	m, err := c.WatchInboxes([]*client.Inbox{in})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	// Delete the inbox behind the client's back: the poller's 404 must
	// surface.
	other := clienttest.NewClient(t, srv.URL())
	if _, err := other.DeleteAllInboxes(clienttest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		var notFound *client.InboxNotFoundError
		if !errors.As(err, &notFound) {
			t.Fatalf("reported %v, want an inbox-not-found error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no sync error reported")
	}
}

func TestSubscribingToAnInboxNotLoadedFails(t *testing.T) {
	srv := servertest.Start(t)
	c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(client.StrategyAuto)...)
	in := clienttest.CreateInbox(t, c, "")
	got := clienttest.NewCollector()
	sub, err := in.OnNewEmail(got.Add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if !c.Forget(in.Address()) {
		t.Fatal("Forget")
	}
	if _, err := in.OnNewEmail(got.Add); err == nil {
		t.Fatal("subscribing to a forgotten inbox worked")
	}
	// Forgetting the only watched inbox ends its watch.
	deadline := time.Now().Add(5 * time.Second)
	for c.State().Kind != client.StateIdle {
		if time.Now().After(deadline) {
			t.Fatalf("state %s after forgetting the only watched inbox", c.State())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
