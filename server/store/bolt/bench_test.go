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

// BenchmarkBoltCommit measures durable commits of one 4 KB email each from
// 1 writer (each commit waits for its own fdatasync) and from 8 concurrent
// writers (the group committer shares one between them).
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
