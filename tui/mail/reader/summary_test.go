package reader

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/tui/tuitest"
)

// summaryLine is the value of the summary's line label, trimmed.
func summaryLine(t *testing.T, view, label string) string {
	t.Helper()
	for _, l := range plainLines(view) {
		l = strings.Trim(l, "│ ")
		if v, ok := strings.CutPrefix(l, fmt.Sprintf("%-*s", summaryLabel, label)); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no %s line:\n%s", label, ansi.Strip(view))
	return ""
}

func TestReaderSummaryDates(t *testing.T) {
	est := time.FixedZone("EST", -5*3600)
	utc := tuitest.Now()
	cases := []struct {
		header         string
		now            time.Time
		date, received string
	}{
		{"Mon, 3 Mar 2025 10:00:00 +0100", utc, "Mon, 3 Mar 2025 10:00:00 +0100 (09:00 UTC here)", "2025-06-01 11:55:00 UTC (5m ago)"},
		{"Mon, 03 Mar 2025 10:00:00 +0100 (CET)", utc.In(est), "Mon, 3 Mar 2025 10:00:00 +0100 (04:00 EST here)", "2025-06-01 06:55:00 EST (5m ago)"},
		{"Mon, 3 Mar 2025 01:00:00 +0100", utc.In(est), "Mon, 3 Mar 2025 01:00:00 +0100 (Sun 2 Mar 19:00 EST here)", "2025-06-01 06:55:00 EST (5m ago)"},
		{"Sun, 1 Jun 2025 11:50:00 +0000", utc, "Sun, 1 Jun 2025 11:50:00 +0000", "2025-06-01 11:55:00 UTC (5m ago)"},
		{"", utc, "no Date header", "2025-06-01 11:55:00 UTC (5m ago)"},
		{"yesterday", utc, "unparsable Date header: yesterday", "2025-06-01 11:55:00 UTC (5m ago)"},
	}
	// A narrow reader gets the short forms.
	e := model.Email{ID: "d", HasContent: true, ReceivedAt: utc, Headers: map[string]string{"date": "Mon, 3 Mar 2025 10:00:00 +0100"}}
	for width, want := range map[int]string{50: "2025-03-03 10:00 +0100 (09:00 UTC here)", 45: "2025-03-03 10:00 +0100 (09:00 UTC)"} {
		if got := summaryLine(t, readerOn(e, width, 20, false, utc).View(), "Date"); got != want {
			t.Errorf("width %d: Date line %q, want %q", width, got, want)
		}
	}
	for _, c := range cases {
		e := model.Email{ID: "d", From: "a@example.com", To: []string{tuitest.DemoAddr}, HasContent: true,
			ReceivedAt: utc.Add(-5 * time.Minute), Headers: map[string]string{}}
		if c.header != "" {
			e.Headers["date"] = c.header
		}
		view := readerOn(e, 90, 20, false, c.now).View()
		if got := summaryLine(t, view, "Date"); got != c.date {
			t.Errorf("Date header %q: Date line %q, want %q", c.header, got, c.date)
		}
		if got := summaryLine(t, view, "Received"); got != c.received {
			t.Errorf("Date header %q: Received line %q, want %q", c.header, got, c.received)
		}
	}
}

func TestReaderSummaryCcAndMore(t *testing.T) {
	var to, cc []string
	for i := 1; i <= 200; i++ {
		to = append(to, fmt.Sprintf("user%d@example.com", i))
	}
	for i := 1; i <= 100; i++ {
		cc = append(cc, fmt.Sprintf("\"Team, %d\" <team%d@example.com>", i, i))
	}
	e := model.Email{ID: "cc", From: "a@example.com", To: to, HasContent: true, ReceivedAt: tuitest.Now(),
		Headers: map[string]string{"cc": strings.Join(cc, ", ")}}
	view := readerOn(e, 60, 20, false, tuitest.Now()).View()
	if got, want := summaryLine(t, view, "To"), "user1@example.com, user2@example.com and 198 more"; got != want {
		t.Errorf("To line %q, want %q", got, want)
	}
	if got, want := summaryLine(t, view, "Cc"), `"Team, 1" <team1@example.com> and 99 more`; got != want {
		t.Errorf("Cc line %q, want %q", got, want)
	}
	// Too narrow for even the first: it is cut, the count kept.
	view = readerOn(e, 40, 20, false, tuitest.Now()).View()
	if got, want := summaryLine(t, view, "To"), "user1@example.c… and 199 more"; got != want {
		t.Errorf("narrow To line %q, want %q", got, want)
	}
	// No Cc header, no Cc line: the body gets the room.
	e.Headers = nil
	r := readerOn(e, 60, 20, false, tuitest.Now())
	if view := ansi.Strip(r.View()); strings.Contains(view, "│Cc ") || r.contentHeight() != 20-2-7 {
		t.Errorf("no Cc, but a Cc line or no room for it (%d lines of content):\n%s", r.contentHeight(), view)
	}
}

func TestReaderTabBarShortens(t *testing.T) {
	e := tuitest.Emails()[0]
	for width, want := range map[int]string{
		108: " 1 Body  2 Headers  3 Links(4)  4 Attachments(1)  5 Raw  6 Auth  7 Checks  8 Rendered ",
		66:  " 1 Body  2 Head  3 Link(4)  4 Att(1)  5 Raw  6 Auth  7 Chk  8 Rend",
		45:  " 1 Body  2  3 Link(4)  4 Att(1)  5  6  7  8 ",
		27:  " 1  2  3  4  5  6  7  8 ",
		14:  " 1  2  3  4  5  6  7  8",
	} {
		r := readerOn(e, width+2, 20, false, tuitest.Now())
		if got := ansi.Strip(r.bar.tabLine(e, width)); got != want {
			t.Errorf("width %d: %q, want %q", width, got, want)
		}
	}
	// The last tab's closing pad is the first room given up: full labels
	// that fit without it are kept, the pad cut.
	r := readerOn(e, 80, 24, false, tuitest.Now())
	r.body.showHTML = true
	full := " 1 Body·html  2 Headers  3 Links(4)  4 Attachments(1)  5 Raw  6 Auth  7 Checks  8 Rendered"
	for width, want := range map[int]string{90: full, 91: full + " "} {
		if got := ansi.Strip(r.bar.tabLine(e, width)); got != want {
			t.Errorf("Body·html, width %d: %q, want %q", width, got, want)
		}
	}
	// Short labels keep the tabs up to Auth named in the reader of a
	// 60-column screen (58 cells inside), Body·html too.
	for html, want := range map[bool]string{
		false: " 1 Body  2 Head  3 Link(4)  4 Att(1)  5 Raw  6 Auth  7  8 ",
		true:  " 1 Html  2 Head  3 Link(4)  4 Att(1)  5 Raw  6 Auth  7  8 ",
	} {
		r.body.showHTML = html
		if got := ansi.Strip(r.bar.tabLine(e, 58)); got != want {
			t.Errorf("html %v, width 58: %q, want %q", html, got, want)
		}
	}
}

func TestReaderMarksEmptyParts(t *testing.T) {
	for text, want := range map[string]string{
		"\n--\n\n--\n":        "(empty part)|--|(empty part)|--|(empty part)",
		"One\n--\n \n--\nTwo": "One|--|(empty part)|--|Two",
		"Just -- text\n--\n":  "Just -- text|--|(empty part)",
	} {
		e := model.Email{ID: "p", From: "a@example.com", HasContent: true, ReceivedAt: tuitest.Now(), Text: text}
		var body []string
		below := false // below the rule under the tab bar
		for _, l := range plainLines(readerOn(e, 50, 30, false, tuitest.Now()).View()) {
			switch l = strings.TrimSpace(strings.Trim(l, "│╰─╯")); {
			case l == "" && !below:
				below = true
			case l != "" && below:
				body = append(body, l)
			}
		}
		if got := strings.Join(body, "|"); got != want {
			t.Errorf("text %q shows %q, want %q", text, got, want)
		}
	}
}

// TestReaderURLsWholeBehindHyperlinks: a URL longer than the reader is
// alone on its line, cut with "…", its hyperlink to the whole URL, in
// the body and in the Links tab; a shorter one is never broken.
func TestReaderURLsWholeBehindHyperlinks(t *testing.T) {
	long := "https://track-and-trace.acme-shop.example/orders/10234/status?utm-source=news-letter"
	short := "https://acme-shop.example/p/1-blue"
	e := model.Email{ID: "u", From: "a@example.com", HasContent: true, ReceivedAt: tuitest.Now(),
		Text: "Track it at " + long + " or shop at " + short + " today.", Links: []string{long, short}}
	for _, tab := range []Tab{TabBody, TabLinks} {
		r := readerOn(e, 42, 30, true, tuitest.Now())
		r.SetTab(tab)
		view := r.View()
		var cut string
		for _, l := range strings.Split(view, "\n") {
			if strings.Contains(ansi.Strip(l), "https://track") {
				cut = l
			}
		}
		plain := ansi.Strip(cut)
		if !strings.Contains(cut, "\x1b]8;;"+long+"\a") || !strings.HasSuffix(strings.TrimRight(plain, "│ "), "…") {
			t.Errorf("tab %d: the long URL's line is %q", tab, cut)
		}
		if strings.Contains(ansi.Strip(view), "utm-source=news-letter") {
			t.Errorf("tab %d: the long URL goes on past its line:\n%s", tab, ansi.Strip(view))
		}
		if !strings.Contains(ansi.Strip(view), short) || !strings.Contains(view, "\x1b]8;;"+short+"\a") {
			t.Errorf("tab %d: the short URL is broken or not a hyperlink:\n%s", tab, ansi.Strip(view))
		}
		if tab == TabBody && !strings.Contains(strings.Join(plainLines(view), " "), "3 lists them whole") {
			t.Errorf("the body does not say where the cut link is whole:\n%s", ansi.Strip(view))
		}
	}
	// Without hyperlinks, no OSC 8 at all.
	if view := readerOn(e, 42, 30, false, tuitest.Now()).View(); strings.Contains(view, "\x1b]8;") {
		t.Errorf("hyperlinks off, but the body holds one:\n%q", view)
	}
}

// TestReaderSummaryEnvelope: where the To header names nobody, the To
// line shows the envelope recipients labelled as such; a Bcc recipient
// (one only the envelope names) gets an Envelope line; mail whose
// envelope the headers already say, and mail without one, get none.
func TestReaderSummaryEnvelope(t *testing.T) {
	now := tuitest.Now()
	base := model.Email{ID: "e1", From: "ops@x.test", Subject: "reset", ReceivedAt: now, HasContent: true,
		Headers: map[string]string{"Cc": `Quoted <"odd local"@example.com>`}}
	bcc := base
	bcc.To = []string{"visible@x.test"}
	bcc.Envelope = &model.Envelope{From: "ops@x.test", To: []string{"visible@x.test", "admin-bcc@x.test"}}
	view := readerOn(bcc, 100, 30, false, now).View()
	if got := summaryLine(t, view, "To"); got != "visible@x.test" {
		t.Errorf("To line %q", got)
	}
	if got := summaryLine(t, view, "Envelope"); got != "to admin-bcc@x.test" {
		t.Errorf("Envelope line %q, want the Bcc recipient", got)
	}
	if got := summaryLine(t, view, "Cc"); got != `"Quoted" <"odd local"@example.com>` {
		t.Errorf("Cc line %q, want the quoted local part kept", got)
	}

	group := base
	group.To = []string{}
	group.Envelope = &model.Envelope{From: "ops@x.test", To: []string{"ietf@x.test"}}
	view = readerOn(group, 100, 30, false, now).View()
	if got := summaryLine(t, view, "To"); got != "ietf@x.test (envelope)" {
		t.Errorf("To line of a mail without To recipients %q", got)
	}
	for _, e := range []model.Email{group, {ID: "e1", From: "a@x.test", To: []string{"b@x.test"}, ReceivedAt: now}} {
		if strings.Contains(ansi.Strip(readerOn(e, 100, 30, false, now).View()), "Envelope ") {
			t.Errorf("an Envelope line for %+v", e)
		}
	}
}
