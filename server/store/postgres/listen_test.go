package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"sandview/server/store"
	"sandview/server/store/postgres"
)

// reportCounter counts the notices one replica's stream gets.
type reportCounter struct {
	mu      sync.Mutex
	emails  map[string]int
	resyncs int
}

func (c *reportCounter) notice(n store.Notice) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch n.Kind {
	case store.NoticeEmail:
		c.emails[n.Key.ID]++
	case store.NoticeResync:
		c.resyncs++
	}
}

// waitUntil polls cond (under the counter's lock) for up to 30 s.
func (c *reportCounter) waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.mu.Lock()
		ok := cond()
		c.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestListenAfterRestartReportsOnce: a replica's stream is served by one
// process, then by its restarted successor, whose connections are cut in
// the middle of a burst of mail from another replica. Every email is
// reported once over the stream's life: the successor does not report
// again what its predecessor did, and its catch-up skips what it reported.
func TestListenAfterRestartReportsOnce(t *testing.T) {
	ctx := context.Background()
	url := pg.NewDatabase(t)
	writer, err := postgres.Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	if err := writer.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	commit := func(i int) {
		e := &store.Email{ID: fmt.Sprintf("%016x", i), InboxHash: "h", ReceivedAt: time.Now(), Metadata: []byte("{}")}
		for {
			if err := writer.Commit(ctx, store.Batch{Put: []*store.Email{e}}); err == nil {
				return
			}
			time.Sleep(10 * time.Millisecond) // the writer's pooled connection was cut too
		}
	}
	stream := &reportCounter{emails: map[string]int{}}

	first, err := postgres.Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Listen(ctx, stream.notice); err != nil {
		t.Fatal(err)
	}
	const before, burst = 50, 150
	for i := range before {
		commit(i)
	}
	stream.waitUntil(t, "the first process's reports", func() bool { return len(stream.emails) == before })
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second, err := postgres.Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if err := second.Listen(ctx, stream.notice); err != nil {
		t.Fatal(err)
	}
	for i := before; i < before+burst; i++ {
		commit(i)
		if i == before+burst/2 {
			terminate(t, url)
		}
	}
	stream.waitUntil(t, "a reconnect", func() bool { return stream.resyncs >= 1 })
	// The catch-up runs before anything reported after it: once the last
	// email is in, any repeat of the catch-up is too.
	commit(before + burst)
	const total = before + burst + 1
	stream.waitUntil(t, "every email", func() bool { return stream.emails[fmt.Sprintf("%016x", total-1)] == 1 })
	stream.mu.Lock()
	defer stream.mu.Unlock()
	if len(stream.emails) != total {
		t.Errorf("%d of %d emails reported", len(stream.emails), total)
	}
	repeated := 0
	for _, n := range stream.emails {
		if n != 1 {
			repeated++
		}
	}
	if repeated > 0 {
		t.Errorf("%d emails reported more than once", repeated)
	}
}
