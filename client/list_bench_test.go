package client

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"sandview/model"
)

// BenchmarkOpenEncryptedEmail opens the recorded email (metadata and
// parsed content) through the Inbox.
func BenchmarkOpenEncryptedEmail(b *testing.B) {
	dir := "testdata/reference-deployment/"
	var info model.ServerInfo
	var rec model.EmailRecord
	for name, v := range map[string]any{"server-info.json": &info, "encrypted-email.json": &rec} {
		data, err := os.ReadFile(dir + name)
		if err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(dir + "encrypted-inbox-export.json")
	if err != nil {
		b.Fatal(err)
	}
	c, err := New("http://127.0.0.1:9", "k")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	d, err := ValidateExport(data)
	if err != nil {
		b.Fatal(err)
	}
	in := c.inboxFromExport(d)
	if err := in.setOpener(info.EncryptionContext()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e, err := in.OpenRecord(rec)
		if err != nil || !e.HasContent {
			b.Fatal(err)
		}
	}
}

// BenchmarkListDecrypt1000 decodes a list body of 1,000 encrypted emails
// with content, opens them (worker pool) and sorts them: the work of
// Inbox.Emails after the HTTP exchange.
func BenchmarkListDecrypt1000(b *testing.B) {
	s := newSealedInbox(b)
	body, err := json.Marshal(s.records(b, 1000))
	if err != nil {
		b.Fatal(err)
	}
	benchmarkList(b, s.inbox, body)
}

// BenchmarkListMetadata10000 is a 10,000-email list without content (the
// 1,000 sealed records repeated ten times: opening costs the same).
func BenchmarkListMetadata10000(b *testing.B) {
	s := newSealedInbox(b)
	recs := s.records(b, 1000)
	all := make([]json.RawMessage, 0, 10000)
	for range 10 {
		for _, r := range recs {
			var rec model.EmailRecord
			if err := json.Unmarshal(r, &rec); err != nil {
				b.Fatal(err)
			}
			rec.EncryptedParsed = nil
			m, _ := json.Marshal(rec)
			all = append(all, m)
		}
	}
	body, err := json.Marshal(all)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkList(b, s.inbox, body)
}

func benchmarkList(b *testing.B, in *Inbox, body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	// CPU time per list, besides wall time: on a shared machine the wall
	// time depends on other load, the CPU time much less.
	var cpu time.Duration
	for b.Loop() {
		start := processCPUTime()
		emails, err := openBody(in, body)
		if err != nil {
			b.Fatal(err)
		}
		sortNewestFirst(emails)
		cpu += processCPUTime() - start
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}
