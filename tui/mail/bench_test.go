package mail

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/tui/tuitest"
)

// manyEmails are n emails, newest first.
func manyEmails(n int) []model.Email {
	emails := make([]model.Email, n)
	for i := range emails {
		emails[i] = model.Email{
			ID: fmt.Sprintf("id-%05d", i), From: fmt.Sprintf("Sender %d <s%d@example.com>", i%97, i),
			To: []string{tuitest.DemoAddr}, Subject: fmt.Sprintf("Message number %d about topic %d", i, i%13),
			ReceivedAt: tuitest.Now().Add(-time.Duration(i) * time.Minute), IsRead: i%3 == 0,
		}
	}
	return emails
}

// bigHarness is the mail screen holding n emails in one inbox, at
// 160x47, the email list focused.
func bigHarness(b testing.TB, n int) *harness {
	h := newHarness(b, 160, 47)
	h.svc.SetEmails(tuitest.DemoAddr, manyEmails(n))
	h.Send(emailsLoadedMsg{address: tuitest.DemoAddr, emails: manyEmails(n)})
	return h
}

// BenchmarkLoad10k is sanitizing, sorting and indexing 10,000 emails.
func BenchmarkLoad10k(b *testing.B) {
	h := bigHarness(b, 10)
	emails := manyEmails(10000)
	b.ReportAllocs()
	for b.Loop() {
		h.s.Update(emailsLoadedMsg{address: tuitest.DemoAddr, emails: emails})
	}
}

func TestLargeInboxStaysWindowed(t *testing.T) {
	h := bigHarness(t, 10000)
	h.Press("end")
	if h.selected() != "id-09999" {
		t.Fatalf("end selected %s", h.selected())
	}
	if !containsLine(h.shown(), "Message number 9999") {
		t.Fatal("last email not rendered")
	}
	h.Press("/")
	h.Type(`subject:"topic 7"`)
	if n := len(h.s.panes.emails.filtered); n != 769 {
		t.Fatalf("filter kept %d", n)
	}
}

func containsLine(s, sub string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}
