package bolt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandview/server/store"
	"sandview/server/store/bolt"
)

// BenchmarkBoltCommit measures commits of one 4 KB email each from 1
// writer (a record each) and from 8 concurrent writers (the group
// committer shares a record between them); the log's records are synced
// together once a second.
func BenchmarkBoltCommit(b *testing.B) {
	for _, writers := range []int{1, 8} {
		b.Run(fmt.Sprintf("writers-%d", writers), func(b *testing.B) { benchBoltCommit(b, writers) })
	}
}

func benchBoltCommit(b *testing.B, writers int) {
	ctx := context.Background()
	db, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h"}); err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 4096)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				e := &store.Email{ID: fmt.Sprintf("%016x", i), InboxHash: "h", Metadata: payload[:200], Parsed: payload[:1800], Raw: payload[:2000]}
				if err := db.Commit(ctx, store.Batch{Put: []*store.Email{e}}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "commits/s")
}

// BenchmarkBoltStart measures what a start costs the store with 0, 10,000
// and 100,000 stored emails of 4 KB: opening the file and what the core
// reads before it serves (the inboxes and the last email ID).
func BenchmarkBoltStart(b *testing.B) {
	for _, n := range []int{0, 10_000, 100_000} {
		b.Run(fmt.Sprintf("emails-%d", n), func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "bench.db")
			fill(b, path, n)
			for b.Loop() {
				db, err := bolt.Open(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := db.Inboxes(ctx); err != nil {
					b.Fatal(err)
				}
				last, err := db.LastEmailID(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
				if (last == "") != (n == 0) {
					b.Fatalf("last email id %q over %d emails", last, n)
				}
			}
		})
	}
}

// fill makes a store at path holding n emails of 4 KB in one inbox.
func fill(b *testing.B, path string, n int) {
	b.Helper()
	ctx := context.Background()
	db, err := bolt.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 4096)
	for i := 0; i < n; i += 1000 {
		var batch store.Batch
		for j := i; j < min(i+1000, n); j++ {
			batch.Put = append(batch.Put, &store.Email{ID: fmt.Sprintf("%016x", j), InboxHash: "h", Metadata: payload[:200], Parsed: payload[:1800], Raw: payload[:2000]})
		}
		if err := db.Commit(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
}
