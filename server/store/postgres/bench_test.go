package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sandview/server/store"
)

// BenchmarkCommit measures commits of one 4 KB email each from 8
// concurrent writers on a durable PostgreSQL (pgtest.Main makes a -bench
// run's server durable): concurrent commits share transactions.
func BenchmarkCommit(b *testing.B) {
	ctx := context.Background()
	db := open(b, 1)[0]
	if err := db.PutInbox(ctx, store.Inbox{Address: "a@x", Hash: "h", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 4096)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range 8 {
		wg.Go(func() {
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
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "commits/s")
}
