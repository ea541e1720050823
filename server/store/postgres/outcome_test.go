package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"sandview/server/store"
	"sandview/server/store/postgres"
)

// noticeCounter counts a listener's email notices by id.
type noticeCounter struct {
	mu   sync.Mutex
	seen map[string]int
}

func listenCounts(t *testing.T, s *postgres.Store) *noticeCounter {
	t.Helper()
	c := &noticeCounter{seen: map[string]int{}}
	if err := s.Listen(context.Background(), func(n store.Notice) {
		if n.Kind == store.NoticeEmail {
			c.mu.Lock()
			c.seen[n.Key.ID]++
			c.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitFor waits until the listener reported every id in want, then checks
// that it reported each once and nothing else.
func (c *noticeCounter) waitFor(t *testing.T, want []string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.mu.Lock()
		missing := 0
		for _, id := range want {
			if c.seen[id] == 0 {
				missing++
			}
		}
		c.mu.Unlock()
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d stored emails not reported", missing, len(want))
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	stored := map[string]bool{}
	for _, id := range want {
		stored[id] = true
	}
	for id, n := range c.seen {
		switch {
		case !stored[id]:
			t.Errorf("email %s reported, but not stored", id)
		case n != 1:
			t.Errorf("email %s reported %d times", id, n)
		}
	}
}

func putInbox(t *testing.T, s *postgres.Store, hash string) {
	t.Helper()
	if err := s.PutInbox(context.Background(), store.Inbox{Address: hash + "@x", Hash: hash, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
}

// TestCommitAnswerLost: a proxy in front of PostgreSQL closes the
// connection right after it forwarded a commit, so the server commits and
// the store never hears it. The commit is reported made, stored once and
// notified once; alone and within a group of concurrent commits.
func TestCommitAnswerLost(t *testing.T) {
	ctx := context.Background()
	url := pg.NewDatabase(t)
	proxy := pg.Proxy(t)
	writer, err := postgres.Open(ctx, proxy.URL(url), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = writer.Close() })
	reader := open1(t, url)
	putInbox(t, writer, "h")
	notices := listenCounts(t, reader)

	var stored []string
	for round, group := range []int{1, 16} {
		marker := fmt.Sprintf("lost answer %d", round)
		fired := proxy.LoseAnswer([]byte(marker))
		errs := make([]error, group)
		var wg sync.WaitGroup
		for i := range group {
			id := fmt.Sprintf("%d-%03d", round, i)
			raw := []byte("mail " + id)
			if i == group/2 {
				raw = []byte(marker)
			}
			stored = append(stored, id)
			wg.Go(func() {
				e := &store.Email{ID: id, InboxHash: "h", ReceivedAt: time.Now(), Metadata: []byte("{}"), Raw: raw}
				errs[i] = writer.Commit(ctx, store.Batch{Put: []*store.Email{e}})
			})
		}
		wg.Wait()
		select {
		case <-fired:
		default:
			t.Fatalf("round %d: the proxy never saw the marked commit", round)
		}
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d: commit %d: %v, want it made", round, i, err)
			}
		}
	}
	ids, err := reader.IDs(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ids) != fmt.Sprint(stored) {
		t.Fatalf("stored %v, want %v", ids, stored)
	}
	notices.waitFor(t, stored)
}

// TestCommitsAcrossImmediateRestart: PostgreSQL restarts as after a crash
// while commits run concurrently. Every commit answered made is stored
// (once) and notified once; every commit answered failed is absent; none
// is in doubt.
func TestCommitsAcrossImmediateRestart(t *testing.T) {
	ctx := context.Background()
	url := pg.NewDatabase(t)
	writer, reader := open1(t, url), open1(t, url)
	putInbox(t, writer, "h")
	notices := listenCounts(t, reader)

	const senders, each = 8, 40
	errs := make([][]error, senders)
	started := make(chan struct{}, senders*each)
	var wg sync.WaitGroup
	for s := range senders {
		errs[s] = make([]error, each)
		wg.Go(func() {
			for i := range each {
				e := &store.Email{ID: fmt.Sprintf("%d-%03d", s, i), InboxHash: "h", ReceivedAt: time.Now(), Metadata: []byte("{}")}
				errs[s][i] = writer.Commit(ctx, store.Batch{Put: []*store.Email{e}})
				started <- struct{}{}
			}
		})
	}
	for range senders * each / 4 {
		<-started
	}
	pg.RestartImmediate(t)
	wg.Wait()

	ids := idsAfterRestart(t, reader, "h")
	have := map[string]bool{}
	for _, id := range ids {
		have[id] = true
	}
	made, failed := 0, 0
	for s := range senders {
		for i, err := range errs[s] {
			id := fmt.Sprintf("%d-%03d", s, i)
			switch {
			case errors.Is(err, store.ErrInDoubt):
				t.Errorf("commit %s in doubt: %v", id, err)
			case err == nil && !have[id]:
				t.Errorf("commit %s answered made, not stored", id)
			case err != nil && have[id]:
				t.Errorf("commit %s answered failed (%v), but stored", id, err)
			case err == nil:
				made++
			default:
				failed++
			}
		}
	}
	t.Logf("%d commits made, %d failed across the restart", made, failed)
	notices.waitFor(t, ids)
}

// idsAfterRestart lists an inbox's ids; reads on the pooled connections
// the restart cut fail (and drop them) until a new one answers.
func idsAfterRestart(t *testing.T, s *postgres.Store, hash string) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ids, err := s.IDs(context.Background(), hash)
		if err == nil {
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatalf("list after the restart: %v", err)
		}
	}
}

// open1 opens one store on url.
func open1(t *testing.T, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
