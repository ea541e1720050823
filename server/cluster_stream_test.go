package server_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/servertest"
)

// TestReplicaStreamExactlyOnce: a subscriber streams an inbox from
// replica B while mail arrives on replica A. B restarts; the subscriber
// reconnects to the new process; in the middle of the next burst every
// database connection is cut, B's listener too. Over the subscription's
// life every stored email is streamed once: none lost, none repeated.
func TestReplicaStreamExactlyOnce(t *testing.T) {
	storeURL := pg.NewDatabase(t)
	a, aAPI := servertest.StartAPI(t, onStore(storeURL))
	in := aAPI.CreatePlain(nil)

	var mu sync.Mutex
	got := map[string]int{}
	follow := func(b *server.Server) {
		s := servertest.OpenStream(t, b, in.InboxHash)
		go func() {
			for {
				ev, err := s.Next()
				if err != nil {
					return // the stream ended (the process stopped or the test did)
				}
				if ev.IsNotification() {
					mu.Lock()
					got[ev.EmailID]++
					mu.Unlock()
				}
			}
		}()
	}
	send := func(subject string) {
		t.Helper()
		for {
			err := servertest.SendMail(a.SMTPAddr(), "sender@example.org", []string{in.EmailAddress}, servertest.SimpleMessage(in.EmailAddress, subject))
			if err == nil {
				return
			}
			if smtpsend.Code(err) != 451 { // 451: A's connection to the store was cut too
				t.Fatalf("send %s: %v", subject, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitStreamed := func(what string, n int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			done := len(got) >= n
			mu.Unlock()
			if done {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	b1 := servertest.Start(t, onStore(storeURL))
	follow(b1)
	const before, burst = 20, 60
	for i := range before {
		send(fmt.Sprintf("before %d", i))
	}
	waitStreamed("the first process's events", before)
	if err := b1.Close(); err != nil {
		t.Fatal(err)
	}

	b2 := servertest.Start(t, onStore(storeURL))
	follow(b2)
	for i := range burst {
		send(fmt.Sprintf("burst %d", i))
		if i == burst/2 {
			cutConnections(t, storeURL)
		}
	}
	send("sentinel")
	list := aAPI.Emails(in.EmailAddress, false)
	var sentinel string
	for _, e := range list {
		if meta, _ := servertest.DecodePlain(t, e); meta.Subject == "sentinel" {
			sentinel = e.ID
		}
	}
	// The stream keeps the listener's order, and the sentinel was stored
	// after the cut: once it is streamed, any repeat of the catch-up is too.
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		done := got[sentinel] > 0
		mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sentinel %s was not streamed (%d emails streamed)", sentinel, len(got))
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	repeated := 0
	for _, e := range list {
		switch n := got[e.ID]; {
		case n == 0:
			t.Errorf("email %s was not streamed", e.ID)
		case n > 1:
			repeated++
		}
	}
	if repeated > 0 {
		t.Errorf("%d of %d emails streamed more than once", repeated, len(list))
	}
	if len(got) != len(list) {
		t.Errorf("%d emails streamed, %d stored", len(got), len(list))
	}
}

// cutConnections terminates every other connection to the store's
// database (the replicas' pools and listeners).
func cutConnections(t *testing.T, storeURL string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, storeURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
}
