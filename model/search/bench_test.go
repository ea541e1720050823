package search

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/model"
)

// benchEmails makes n emails with bodies of about 2 KB drawn, Zipf-like, from
// a vocabulary of 4,000 words (some German and Japanese); one in a hundred
// bodies holds "password reset link". Every tenth email is HTML only,
// every fifth unloaded (metadata only).
func benchEmails(n int) []model.Email {
	rng := rand.New(rand.NewPCG(1, 2))
	vocabulary := make([]string, 4000)
	syllables := strings.Fields("ka to ri en sa mu lo ve di an re po ni qu ex ta be go hu zi or st ch")
	for i := range vocabulary {
		var w strings.Builder
		for range 1 + rng.IntN(4) {
			w.WriteString(syllables[rng.IntN(len(syllables))])
		}
		vocabulary[i] = w.String()
	}
	for rank, word := range map[int]string{9: "the", 30: "東京", 50: "Invoice", 80: "confirm", 120: "München",
		150: "tomorrow", 200: "Grüße", 250: "ACCOUNT", 300: "password", 350: "reset", 400: "link"} {
		vocabulary[rank] = word
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocabulary)-1))
	return makeEmails(n, rng, func(size int) string {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(vocabulary[zipf.Uint64()])
			b.WriteByte(' ')
		}
		return b.String()
	})
}

// repetitiveEmails is the worst case for the byte-pair filter: every body is
// drawn from the same 40 words, so every body holds every pair of them.
func repetitiveEmails(n int) []model.Email {
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the invoice for your order is attached please Confirm your ACCOUNT " +
		"password reset link expires Grüße aus München 東京 meeting tomorrow at noon Sandbox QA report " +
		"delivery failed retry later welcome aboard newsletter unsubscribe here Straße")
	return makeEmails(n, rng, func(size int) string {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	})
}

func makeEmails(n int, rng *rand.Rand, text func(size int) string) []model.Email {
	results := []string{model.ResultPass, model.ResultPass, model.ResultPass, model.ResultFail, model.ResultSoftfail, model.ResultNone, model.ResultSkipped}
	pick := func() string { return results[rng.IntN(len(results))] }
	start := testNow.Add(-30 * 24 * time.Hour)
	emails := make([]model.Email, n)
	for i := range emails {
		e := model.Email{
			ID:         fmt.Sprintf("m%05d", i),
			InboxHash:  fmt.Sprintf("inbox%d", i%5),
			From:       fmt.Sprintf("%q <user%d@sender%d.test>", text(8), i%97, i%13),
			To:         []string{fmt.Sprintf("qa%d@sandbox.test", i%7)},
			Subject:    text(40),
			ReceivedAt: start.Add(time.Duration(i) * time.Minute),
			IsRead:     i%3 == 0,
			HasContent: i%5 != 0,
		}
		if e.HasContent {
			body := text(2048)
			if i%100 == 7 {
				body += "password reset link"
			}
			if i%10 == 1 {
				e.HTML = "<html><body><p>" + body + "</p></body></html>"
			} else {
				e.Text = body
			}
			e.Headers = map[string]string{"cc": fmt.Sprintf("team%d@sandbox.test", i%11), "subject": e.Subject}
			if i%4 == 0 {
				e.Attachments = []model.Attachment{{Filename: "report.pdf", Size: 1024}}
			}
			e.AuthResults = model.AuthResults{
				SPF:   &model.SPFResult{Result: pick()},
				DKIM:  []model.DKIMResult{{Result: pick()}},
				DMARC: &model.DMARCResult{Result: pick()},
			}
		}
		emails[i] = e
	}
	return emails
}

var benchQueries = []struct{ name, query string }{
	{"word", "münchen"},
	{"absent", "zebra"},
	{"phrase", `"password reset link"`},
	{"operators", "from:sender3 is:unread -has:attachment"},
	{"mixed", "invoice -auth:pass after:7d"},
	{"negated", "-confirm -tomorrow"},
	{"checks", "dkim:fail -spf:pass"},
}

// BenchmarkFilterWarm is a key press that changes the query: the index
// already holds every email's folded text but has learnt nothing about the
// query. Repetitive is the worst case: the byte-pair filter passes every
// body.
func BenchmarkFilterWarm(b *testing.B) {
	for _, corpus := range []struct {
		name    string
		emails  []model.Email
		queries []string
	}{
		{"", benchEmails(10000), nil},
		{"repetitive/", repetitiveEmails(10000), []string{"phrase", "absent"}},
	} {
		for _, bq := range benchQueries {
			if corpus.queries != nil && !slices.Contains(corpus.queries, bq.name) {
				continue
			}
			b.Run(corpus.name+bq.name, func(b *testing.B) {
				q := mustParse(b, bq.query)
				idx := warmIndex(b, corpus.emails)
				var matches int
				for b.Loop() {
					b.StopTimer()
					idx.forgetMemos()
					b.StartTimer()
					matches = len(idx.Filter(q, corpus.emails))
				}
				b.ReportMetric(float64(matches), "matches")
			})
		}
	}
}

// BenchmarkTyping types `password reset link` into a warm index, one
// Filter per key press: ns/key is the mean time a key press takes.
func BenchmarkTyping(b *testing.B) {
	for _, corpus := range []struct {
		name   string
		emails []model.Email
	}{{"zipf", benchEmails(10000)}, {"repetitive", repetitiveEmails(10000)}} {
		b.Run(corpus.name, func(b *testing.B) {
			const typed = "password reset link"
			queries := make([]Query, len(typed))
			for i := range queries {
				queries[i] = mustParse(b, typed[:i+1])
			}
			idx := warmIndex(b, corpus.emails)
			for b.Loop() {
				b.StopTimer()
				idx.forgetMemos()
				b.StartTimer()
				for _, q := range queries {
					idx.Filter(q, corpus.emails)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(queries)), "ns/key")
		})
	}
}

// warmIndex returns an index that has folded every field of emails, and
// collects the garbage of setting up so that the timed loop does not pay
// for it.
func warmIndex(b *testing.B, emails []model.Email) *Index {
	idx := NewIndex()
	idx.Filter(mustParse(b, `"not in any email"`), emails)
	idx.Filter(mustParse(b, "auth:pass"), emails)
	runtime.GC()
	return idx
}

// forgetMemos drops what earlier queries taught the index.
func (x *Index) forgetMemos() {
	for _, d := range x.docs {
		d.bodyMemo = [memoSlots]bodyMemo{}
	}
}

// BenchmarkFilterCold is the first search: each email's fields are folded as
// the query first needs them.
func BenchmarkFilterCold(b *testing.B) {
	emails := benchEmails(10000)
	for _, bq := range benchQueries {
		b.Run(bq.name, func(b *testing.B) {
			q := mustParse(b, bq.query)
			for b.Loop() {
				NewIndex().Filter(q, emails)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := Parse(`password -from:alice subject:"reset link" is:unread after:7d in:all`, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHighlights marks a subject line and a 2 KB body.
func BenchmarkHighlights(b *testing.B) {
	q := mustParse(b, `東京 strian "password reset" -zebra`)
	body := benchEmails(3)[2].Text
	for _, bt := range []struct{ name, text string }{
		{"subject", "Re: Password reset for the Tokyo (東京) office"},
		{"body2KB", body},
	} {
		b.Run(bt.name, func(b *testing.B) {
			if len(bt.text) < 30 || q.Highlights(FieldBody, bt.text) == nil {
				b.Fatalf("nothing to mark in %q", bt.text)
			}
			for b.Loop() {
				q.Highlights(FieldBody, bt.text)
			}
		})
	}
}
