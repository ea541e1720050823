package server_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/servertest"
)

// BenchmarkEncryptedDataIngest compares encrypted ingest on `--data`
// (bbolt and its write-ahead log) with encrypted ingest in memory, side
// by side: two servers in this process, each sent in turn a round of
// 1,000 small mails (benchMessage, 8 pipelined SMTP connections) to an
// encrypted inbox. It reports each one's mails per second until the
// last 250 (mem-msg/s, data-msg/s), until every deferred signature is
// made (…-signed-msg/s) and until the inbox's /sync answers after that
// (…-settled-msg/s: /sync waits for --data's checkpoint, which
// writes the round's mails into the bbolt file, so each round begins with
// both servers idle), the CPU time per mail (…-cpu-µs/msg), data over
// memory (ratio, signed-ratio, settled-ratio), and the
// disk use of a data directory holding 10,000 such mails (disk-MiB-10k:
// blocks allocated after the server stopped). It fails when --data takes
// mail at less than 80% of the in-memory rate (medians over the rounds):
// durable storage must not be what limits encrypted ingest.
func BenchmarkEncryptedDataIngest(b *testing.B) {
	const (
		perRound = 1000
		limit    = 0.8
	)
	unlimited := func(cfg *server.Config) { cfg.MaxEmailsPerInbox = 1 << 30 }
	mem, memAPI := servertest.StartAPI(b, unlimited)
	data, dataAPI := servertest.StartAPI(b, unlimited, func(cfg *server.Config) { cfg.DataDir = b.TempDir() })
	memTo := memAPI.CreateEncrypted(nil).EmailAddress
	dataTo := dataAPI.CreateEncrypted(nil).EmailAddress
	var memRates, dataRates, memSigned, dataSigned, memSettled, dataSettled, memCPU, dataCPU []float64
	for b.Loop() {
		r := ingestRound(b, mem, memAPI, memTo, perRound)
		memRates, memSigned, memSettled, memCPU = append(memRates, r.acked), append(memSigned, r.signed), append(memSettled, r.settled), append(memCPU, r.cpuMicros)
		r = ingestRound(b, data, dataAPI, dataTo, perRound)
		dataRates, dataSigned, dataSettled, dataCPU = append(dataRates, r.acked), append(dataSigned, r.signed), append(dataSettled, r.settled), append(dataCPU, r.cpuMicros)
	}
	memRate, dataRate := median(memRates), median(dataRates)
	b.ReportMetric(memRate, "mem-msg/s")
	b.ReportMetric(dataRate, "data-msg/s")
	b.ReportMetric(median(memSigned), "mem-signed-msg/s")
	b.ReportMetric(median(dataSigned), "data-signed-msg/s")
	b.ReportMetric(median(memCPU), "mem-cpu-µs/msg")
	b.ReportMetric(median(dataCPU), "data-cpu-µs/msg")
	b.ReportMetric(dataRate/memRate, "ratio")
	b.ReportMetric(median(dataSigned)/median(memSigned), "signed-ratio")
	b.ReportMetric(median(memSettled), "mem-settled-msg/s")
	b.ReportMetric(median(dataSettled), "data-settled-msg/s")
	b.ReportMetric(median(dataSettled)/median(memSettled), "settled-ratio")
	disk := encryptedDiskUse(b, 10_000)
	b.ReportMetric(disk, "disk-MiB-10k")
	b.ReportMetric(0, "ns/op")
	b.Logf("msg/s memory %v, data %v; signed memory %v, data %v; settled memory %v, data %v; cpu-µs/msg memory %v, data %v; disk %.0f MiB",
		memRates, dataRates, memSigned, dataSigned, memSettled, dataSettled, memCPU, dataCPU, disk)
	if dataRate < limit*memRate {
		b.Fatalf("encrypted ingest on --data takes %.0f mails/s, %.2f of the %.0f in memory (at least %.2f wanted)",
			dataRate, dataRate/memRate, memRate, limit)
	}
}

// roundRates are a round's mails per second until the last 250, until
// every deferred signature is made and until the inbox's /sync answers
// after that, and the CPU time of the process per mail until signed (client
// included: what the machine's load does not change).
type roundRates struct {
	acked, signed, settled, cpuMicros float64
}

// ingestRound sends n mails to address on srv and measures it.
func ingestRound(b *testing.B, srv *server.Server, api *servertest.Client, address string, n int) roundRates {
	cpu := processCPU(b)
	start := time.Now()
	fill(b, srv, address, n)
	acked := time.Since(start)
	if err := srv.WaitForSignatures(context.Background()); err != nil {
		b.Fatal(err)
	}
	signed := time.Since(start)
	cpuMicros := float64((processCPU(b) - cpu).Microseconds()) / float64(n)
	api.Sync(address)
	settled := time.Since(start)
	return roundRates{float64(n) / acked.Seconds(), float64(n) / signed.Seconds(), float64(n) / settled.Seconds(), cpuMicros}
}

// encryptedDiskUse stores n mails in an encrypted inbox of a server on a
// new data directory, stops the server and returns the MiB the directory
// takes on disk.
func encryptedDiskUse(b *testing.B, n int) float64 {
	dir := b.TempDir()
	srv, err := server.Start(context.Background(), loopbackConfig(dir))
	if err != nil {
		b.Fatal(err)
	}
	fill(b, srv, servertest.NewClient(b, srv).CreateEncrypted(nil).EmailAddress, n)
	if err := srv.WaitForSignatures(context.Background()); err != nil {
		b.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		b.Fatal(err)
	}
	var blocks int64
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		blocks += info.Sys().(*syscall.Stat_t).Blocks
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return float64(blocks*512) / (1 << 20)
}

// median is the middle of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
