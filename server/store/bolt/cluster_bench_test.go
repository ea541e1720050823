package bolt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"sandview/server/store/bolt"
)

// BenchmarkBoltLeaderWork measures the leader's periodic calls when there
// is nothing to do (ExpireInboxes, EnforceLimits under limits not reached,
// Unsigned with nothing unsigned, and LastEmailID, read at a start) on
// stores of one inbox holding 0 and 100,000 emails of 4 KB, in turn. It
// reports the median of each (µs/work-N) and their ratio, and fails when
// 100,000 emails cost more than 2× none: the counters make the work cost
// the inboxes, not the emails (a walk of the emails costs 100× and more).
func BenchmarkBoltLeaderWork(b *testing.B) {
	ctx := context.Background()
	sizes := []int{0, 100_000}
	stores := make([]*bolt.Store, len(sizes))
	for i, n := range sizes {
		path := filepath.Join(b.TempDir(), "bench.db")
		fill(b, path, n)
		db, err := bolt.Open(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		stores[i] = db
	}
	work := func(db *bolt.Store) time.Duration {
		start := time.Now()
		for range 100 {
			if gone, err := db.ExpireInboxes(ctx, time.Now()); err != nil || len(gone) != 0 {
				b.Fatalf("ExpireInboxes: %v %v", gone, err)
			}
			if victims, err := db.EnforceLimits(ctx, 1<<30, 1<<40); err != nil || len(victims) != 0 {
				b.Fatalf("EnforceLimits: %v %v", victims, err)
			}
			if keys, err := db.Unsigned(ctx, 0, 1000); err != nil || len(keys) != 0 {
				b.Fatalf("Unsigned: %v %v", keys, err)
			}
			if _, err := db.LastEmailID(ctx); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start) / 100
	}
	times := make([][]time.Duration, len(sizes))
	for b.Loop() {
		for i, db := range stores {
			times[i] = append(times[i], work(db))
		}
	}
	medians := make([]float64, len(sizes))
	for i, n := range sizes {
		slices.Sort(times[i])
		medians[i] = float64(times[i][len(times[i])/2].Nanoseconds()) / 1000
		b.ReportMetric(medians[i], fmt.Sprintf("µs/work-%d", n))
	}
	ratio := medians[1] / medians[0]
	b.ReportMetric(ratio, "ratio-100k")
	b.ReportMetric(0, "ns/op")
	if ratio > 2 {
		b.Fatalf("the leader's idle work over 100,000 emails takes %.2f× that over none (limit 2×)", ratio)
	}
}
