package search

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"sandview/model"
)

// fixtures are the emails the matching tests search, in this order.
func fixtures() []model.Email {
	at := func(s string) time.Time {
		t, err := time.ParseInLocation("2006-01-02T15:04", s, testNow.Location())
		if err != nil {
			panic(err)
		}
		return t
	}
	return []model.Email{{
		ID: "welcome", InboxHash: "in1", HasContent: true,
		From: `"Alice Example" <alice@example.com>`, To: []string{"bob@sandbox.test"},
		Subject:    "Welcome to Straße",
		Text:       "Hello Bob,\nclick to reset your password.",
		ReceivedAt: at("2026-11-10T09:00"),
		Headers:    map[string]string{"Cc": "Carol <carol@example.org>"},
		AuthResults: model.AuthResults{
			SPF:   &model.SPFResult{Result: model.ResultPass},
			DKIM:  []model.DKIMResult{{Result: model.ResultFail}, {Result: model.ResultPass}},
			DMARC: &model.DMARCResult{Result: model.ResultPass},
		},
	}, {
		ID: "invoice", InboxHash: "in1", HasContent: true, IsRead: true,
		From: "billing@shop.test", To: []string{"bob@sandbox.test", "Dave <dave@sandbox.test>"},
		Subject:     "Your invoice #42",
		HTML:        `<p>Total: <b>42 EUR</b></p><a href="https://shop.test/pay">Pay now</a>`,
		ReceivedAt:  at("2026-11-01T00:00"),
		Attachments: []model.Attachment{{Filename: "invoice.pdf"}},
		AuthResults: model.AuthResults{
			SPF:   &model.SPFResult{Result: "SoftFail"},
			DKIM:  []model.DKIMResult{{Result: model.ResultNone}, {Result: model.ResultFail}},
			DMARC: &model.DMARCResult{Result: model.ResultFail},
		},
	}, {
		ID: "news", InboxHash: "in2",
		From: "news@list.test", To: []string{"bob@sandbox.test"},
		Subject:    "Weekly news",
		ReceivedAt: at("2026-10-01T08:00"),
	}, {
		ID: "reset", InboxHash: "in2", HasContent: true, IsRead: true,
		From: "ops@sandbox.test", To: []string{"bob@sandbox.test"},
		Subject:    "Password \x1b[31mreset",
		Text:       "Your password reset link: https://sandbox.test/reset",
		ReceivedAt: at("2026-11-09T23:30"),
		Headers:    map[string]string{"cc": "ops-archive@sandbox.test"},
		AuthResults: model.AuthResults{
			SPF:        &model.SPFResult{Result: model.ResultSkipped},
			DKIM:       []model.DKIMResult{{Result: model.ResultSkipped}},
			DMARC:      &model.DMARCResult{Result: model.ResultNone},
			ReverseDNS: &model.ReverseDNSResult{Result: model.ResultFail},
		},
	}, {
		ID: "broken", InboxHash: "in2", Problem: "decryption failed",
		From: "unknown@sandbox.test",
	}}
}

func TestMatch(t *testing.T) {
	all := []string{"welcome", "invoice", "news", "reset", "broken"}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", all},
		{"in:all", all},
		// Free text: any field, folded; body needs content.
		{"password", []string{"welcome", "reset"}},
		{"PASSWORD", []string{"welcome", "reset"}},
		{"strasse", []string{"welcome"}},
		{"STRASSE", []string{"welcome"}},
		{`"reset your password"`, []string{"welcome"}},
		{`"reset your  password"`, nil},
		{"password reset", []string{"welcome", "reset"}},
		{`"password reset"`, []string{"reset"}},
		{"news", []string{"news"}},
		{"-news", []string{"welcome", "invoice", "reset"}},
		{"-password", []string{"invoice"}},
		{"sandbox.test", []string{"welcome", "invoice", "news", "reset", "broken"}},
		{"carol", []string{"welcome"}},
		{`"42 eur" "pay now"`, []string{"invoice"}},
		{"shop.test/pay", []string{"invoice"}},
		{"reset\x1b", nil},
		// Field operators.
		{"from:alice", []string{"welcome"}},
		{"from:ALICE@EXAMPLE.COM", []string{"welcome"}},
		{"-from:alice", []string{"invoice", "news", "reset", "broken"}},
		{"to:dave", []string{"invoice"}},
		{"to:bob", []string{"welcome", "invoice", "news", "reset"}},
		{"cc:carol", []string{"welcome"}},
		{"cc:archive", []string{"reset"}},
		{"-cc:carol", []string{"invoice", "reset"}},
		{`subject:"password reset"`, []string{"reset"}},
		{"subject:password", []string{"reset"}},
		{"subject:bob", nil},
		// Flags.
		{"is:unread", []string{"welcome", "news", "broken"}},
		{"is:read", []string{"invoice", "reset"}},
		{"-is:read", []string{"welcome", "news", "broken"}},
		{"has:attachment", []string{"invoice"}},
		{"-has:attachment", []string{"welcome", "reset"}},
		// Authentication.
		{"auth:pass", []string{"welcome"}},
		{"auth:fail", []string{"invoice"}},
		{"-auth:pass", []string{"invoice", "reset"}},
		{"-auth:fail", []string{"welcome", "reset"}},
		{"auth:unverified", []string{"reset"}},
		{"auth:none", []string{"reset"}},
		{"auth:skipped", nil},
		{"spf:pass", []string{"welcome"}},
		{"spf:softfail", []string{"invoice"}},
		{"spf:skipped", []string{"reset"}},
		{"-spf:pass", []string{"invoice", "reset"}},
		{"dkim:fail", []string{"welcome", "invoice"}},
		{"dkim:none", []string{"invoice"}},
		{"dkim:pass", []string{"welcome"}},
		{"dmarc:fail", []string{"invoice"}},
		{"dmarc:none", []string{"reset"}},
		{"dmarc:temperror", nil},
		{"reversedns:fail", []string{"reset"}},
		{"-reverseDns:fail", []string{"welcome", "invoice"}},
		{"reversedns:pass", nil},
		// Dates: after:D and before:D split the emails with a time in two.
		{"after:2026-11-01", []string{"welcome", "invoice", "reset"}},
		{"before:2026-11-01", []string{"news"}},
		{"-before:2026-11-01", []string{"welcome", "invoice", "reset"}},
		{"after:2026-11-01T00:01", []string{"welcome", "reset"}},
		{"after:today", []string{"welcome"}},
		{"after:yesterday", []string{"welcome", "reset"}},
		{"after:2h", nil},
		{"after:4h", []string{"welcome"}},
		{"before:7d", []string{"invoice", "news"}},
		{"after:2026-11-09T21:30:00Z", []string{"welcome", "reset"}},
		{"after:2026-11-09T21:30:01Z", []string{"welcome"}},
		// Combinations.
		{"from:alice is:unread auth:pass", []string{"welcome"}},
		{"bob -is:read", []string{"welcome", "news"}},
		{"in:all invoice -has:attachment", nil},
		{"form:alice", nil},
	} {
		q := mustParse(t, tc.query)
		emails := fixtures()
		var got []string
		for _, i := range NewIndex().Filter(q, emails) {
			got = append(got, emails[i].ID)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q matches %q, want %q", tc.query, got, tc.want)
		}
		var direct []string
		for _, e := range emails {
			if q.Match(e) {
				direct = append(direct, e.ID)
			}
		}
		if !reflect.DeepEqual(direct, got) {
			t.Errorf("%q: Query.Match gives %q, Index.Filter %q", tc.query, direct, got)
		}
	}
}

func TestNeedsContent(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  bool
	}{
		{"", false},
		{"in:all from:a to:b subject:c is:read before:1d after:2026-01-01", false},
		{"word", true},
		{"-word", true},
		{"cc:x", true},
		{"has:attachment", true},
		{"auth:pass", true},
		{"spf:pass", true},
		{"dkim:pass", true},
		{"dmarc:pass", true},
	} {
		if got := mustParse(t, tc.query).NeedsContent(); got != tc.want {
			t.Errorf("%q.NeedsContent() = %v, want %v", tc.query, got, tc.want)
		}
	}
}

// TestAuthOperatorIsTheVerdict: auth: answers with model's one verdict:
// an email whose checks found no record is auth:unverified (auth:none), never
// auth:fail; neutral and temperror are inconclusive, not failures.
func TestAuthOperatorIsTheVerdict(t *testing.T) {
	spf := func(r string) *model.SPFResult { return &model.SPFResult{Result: r} }
	dmarc := func(r string) *model.DMARCResult { return &model.DMARCResult{Result: r} }
	dkim := func(rs ...string) []model.DKIMResult {
		var out []model.DKIMResult
		for _, r := range rs {
			out = append(out, model.DKIMResult{Result: r})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		auth model.AuthResults
		want string
	}{
		{"no data", model.AuthResults{}, "skipped"},
		{"all pass", model.AuthResults{SPF: spf("pass"), DKIM: dkim("pass"), DMARC: dmarc("pass")}, "pass"},
		{"pass, reverse DNS failed", model.AuthResults{SPF: spf("pass"), DKIM: dkim("pass"), DMARC: dmarc("pass"),
			ReverseDNS: &model.ReverseDNSResult{Result: "fail"}}, "pass"},
		{"no records (sandview send)", model.AuthResults{SPF: spf("none"), DKIM: dkim("none"), DMARC: dmarc("none"),
			ReverseDNS: &model.ReverseDNSResult{Result: "pass"}}, "unverified"},
		{"pass missing DMARC", model.AuthResults{SPF: spf("pass"), DKIM: dkim("pass")}, "unverified"},
		{"all skipped", model.AuthResults{SPF: spf("skipped"), DKIM: dkim("skipped"), DMARC: dmarc("skipped")}, "skipped"},
		{"one DKIM signature passed", model.AuthResults{SPF: spf("pass"), DKIM: dkim("fail", "pass"), DMARC: dmarc("none")}, "unverified"},
		{"DKIM failed", model.AuthResults{SPF: spf("pass"), DKIM: dkim("none", "permerror"), DMARC: dmarc("pass")}, "fail"},
		{"SPF neutral", model.AuthResults{SPF: spf("neutral")}, "unverified"},
		{"SPF temperror", model.AuthResults{SPF: spf("temperror"), DKIM: dkim("pass"), DMARC: dmarc("pass")}, "unverified"},
		{"DMARC FAIL", model.AuthResults{DMARC: dmarc("FAIL")}, "fail"},
		{"only reverse DNS failed", model.AuthResults{ReverseDNS: &model.ReverseDNSResult{Result: "fail"}}, "skipped"},
	} {
		e := model.Email{ID: "x", HasContent: true, AuthResults: tc.auth}
		for _, word := range []string{"pass", "fail", "unverified", "none", "skipped"} {
			q, err := Parse("auth:"+word, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			want := word == tc.want || word == "none" && tc.want == "unverified"
			if got := q.Match(e); got != want {
				t.Errorf("%s: auth:%s matches %v, want %v", tc.name, word, got, want)
			}
		}
	}
}

// TestBodySearchRemembersCorrectly edits a query at random over bodies of a
// small alphabet, so needles overlap, extend and shrink, and checks every
// answer of a document (which remembers what it found) against a plain
// search.
func TestBodySearchRemembersCorrectly(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const alphabet = "abAB ß"
	randomText := func(n int) string {
		runes := []rune(alphabet)
		var b strings.Builder
		for range n {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		return b.String()
	}
	for range 200 {
		e := model.Email{ID: "1", HasContent: true, Text: randomText(1 + rng.IntN(60))}
		d := &document{content: true}
		typed := ""
		for range 40 {
			switch op := rng.IntN(4); {
			case op < 2 || typed == "":
				typed += randomText(1)
			case op == 2:
				_, size := utf8.DecodeLastRuneInString(typed)
				typed = typed[:len(typed)-size]
			default:
				typed = randomText(1 + rng.IntN(4))
			}
			if strings.TrimSpace(typed) == "" {
				continue
			}
			q := mustParse(t, strconv.Quote(typed))
			want := strings.Contains(fold(e.Text), fold(typed))
			if got := q.match(d, &e); got != want {
				t.Fatalf("%q in body %q: match %v, want %v (memo %+v)", typed, e.Text, got, want, d.bodyMemo)
			}
		}
	}
}
