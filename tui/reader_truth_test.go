package tui

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server/mailparse"
	"sandview/tui/tuitest"
)

// truthMail is a mail made by Python's email package: 200 To and 100 Cc
// recipients, a Date header in +0100, and long URLs full of hyphens.
const truthMail = "testdata/reader_truth.eml"

// truthEmail is truthMail as the server parses it, received five minutes
// before the tests' clock.
func truthEmail(t *testing.T) model.Email {
	t.Helper()
	raw, err := os.ReadFile(truthMail)
	if err != nil {
		t.Fatal(err)
	}
	msg := mailparse.Parse(raw)
	return model.Email{
		ID: "truth", From: msg.From, To: msg.To, Subject: msg.Subject, Text: msg.Content.Text, HTML: msg.Content.HTML,
		Headers: msg.Content.Headers, Links: msg.Content.Links, Attachments: msg.Content.Attachments,
		ReceivedAt: tuitest.Now().Add(-5 * time.Minute), HasContent: true, AuthResults: tuitest.PassingAuth(),
	}
}

// TestGoldenReaderTruth opens truthMail in the reader: Cc and "and N
// more", the Date header beside the receive time, URLs whole on their
// lines.
func TestGoldenReaderTruth(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for name, keys := range map[string][]string{"body": nil, "links": {"3"}} {
			t.Run(fmt.Sprintf("%s_%dx%d", name, size[0], size[1]), func(t *testing.T) {
				svc := tuitest.NewFixtureService()
				svc.SetEmails(tuitest.DemoAddr, append([]model.Email{truthEmail(t)}, tuitest.Emails()...))
				h := newHarnessOver(t, svc, size[0], size[1], true)
				openFirst(h)
				h.Press(keys...)
				plain := h.plain()
				for _, want := range []string{"Mon, 3 Mar 2025 10:00:00 +0100 (09:00 UTC here)", "Received 2025-06-01 11:55:00 UTC (5m ago)"} {
					if !strings.Contains(plain, want) {
						t.Fatalf("the reader does not show %q:\n%s", want, plain)
					}
				}
				assertRecipients(t, plain, "To", "customer", 200)
				assertRecipients(t, plain, "Cc", "Support Team", 100)
				assertURLsWhole(t, plain)
				golden.RequireEqual(t, h.rendered())
			})
		}
	}
}

// assertRecipients fails unless the summary's line label names, by
// their first words, some recipients and then says how many more make
// all of them.
func assertRecipients(t *testing.T, view, label, first string, all int) {
	t.Helper()
	m := regexp.MustCompile(`│` + label + ` +(.*) and (\d+) more`).FindStringSubmatch(view)
	if m == nil {
		t.Fatalf("no %s line with \"and N more\":\n%s", label, view)
	}
	shown := strings.Count(m[1], first)
	if more, _ := strconv.Atoi(m[2]); shown < 1 || shown+more != all {
		t.Fatalf("the %s line shows %d and %s more of %d: %q", label, shown, m[2], all, m[0])
	}
}

// assertURLsWhole fails when a line of view holds a piece of truthMail's
// URLs that is not their start: a URL broken across lines.
func assertURLsWhole(t *testing.T, view string) {
	t.Helper()
	for _, line := range strings.Split(view, "\n") {
		for _, piece := range []string{"shop.example/orders", "utm-medium", "spring-sale", "blue-t-shirt"} {
			if i := strings.Index(line, piece); i >= 0 && !strings.Contains(line[:i], "https://") {
				t.Fatalf("a URL is broken before %q:\n%s", piece, view)
			}
		}
	}
}

// TestProgramShowsWhatTheMailSays sends truthMail over SMTP to the
// embedded server and reads the real program's view against it.
func TestProgramShowsWhatTheMailSays(t *testing.T) {
	srv, c, inbox := serverWithInbox(t)
	raw, err := os.ReadFile(truthMail)
	if err != nil {
		t.Fatal(err)
	}
	dark := true
	cfg := Config{Client: c, Settings: &Settings{ServerLabel: "test", DarkTheme: &dark}}
	cfg.Startup = func(context.Context) error {
		return smtpsend.Send(context.Background(), srv.SMTPAddr(), "orders@acme-shop.example", []string{inbox.Address()}, raw)
	}
	sent := time.Date(2025, 3, 3, 10, 0, 0, 0, time.FixedZone("", 3600))
	date := "Mon, 3 Mar 2025 10:00:00 +0100"
	if _, off := sent.In(time.Local).Zone(); off != 3600 {
		date += " (" + sent.In(time.Local).Format("15:04 MST") + " here)"
	}
	view := runUntil(t, cfg, "more", date, "Received", "https://track-and-trace")
	assertURLsWhole(t, view)
	assertRecipients(t, view, "To", "customer", 200)
	assertRecipients(t, view, "Cc", "Support Team", 100)
	if strings.Contains(view, "Date     "+time.Now().Format("2006-01-02")) {
		t.Fatalf("the Date line shows today, not the Date header:\n%s", view)
	}
}
