package tui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
)

// bigModel is a model holding n emails in one inbox, at 160x50.
func bigModel(b testing.TB, n int) *Model {
	emails := make([]model.Email, n)
	for i := range emails {
		emails[i] = model.Email{
			ID: fmt.Sprintf("id-%05d", i), From: fmt.Sprintf("Sender %d <s%d@example.com>", i%97, i),
			To: []string{demoAddr}, Subject: fmt.Sprintf("Message number %d about topic %d", i, i%13),
			ReceivedAt: testNow.Add(-time.Duration(i) * time.Minute), IsRead: i%3 == 0,
		}
	}
	svc := newFakeService(fixtureInboxes()...)
	dark := true
	m := newModel(options{svc: svc, dark: &dark, now: func() time.Time { return testNow },
		tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }})
	send(b, &m, tea.WindowSizeMsg{Width: 160, Height: 50})
	send(b, &m, emailsLoadedMsg{address: demoAddr, emails: emails})
	press(b, &m, "tab")
	return &m
}

// BenchmarkKeyPressFrame10k is one key press to a rendered frame with
// 10,000 emails loaded.
func BenchmarkKeyPressFrame10k(b *testing.B) {
	m := bigModel(b, 10000)
	down, up := keyMsg("down"), keyMsg("up")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if (i/5000)%2 == 1 {
			k = up
		}
		i++
		next, _ := m.Update(k)
		*m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkLoad10k is sanitizing, sorting and indexing 10,000 emails.
func BenchmarkLoad10k(b *testing.B) {
	m := bigModel(b, 10)
	emails := bigModel(b, 10000).current().emails
	b.ReportAllocs()
	for b.Loop() {
		next, _ := m.Update(emailsLoadedMsg{address: demoAddr, emails: emails})
		*m = next.(Model)
	}
}

func TestLargeInboxStaysWindowed(t *testing.T) {
	m := bigModel(t, 10000)
	press(t, m, "end")
	if e, _ := m.messages.selected(); e.ID != "id-09999" {
		t.Fatalf("end selected %s", e.ID)
	}
	if !containsLine(plain(m), "Message number 9999 ") {
		t.Fatal("last email not rendered")
	}
	press(t, m, "/")
	typeText(t, m, "topic 7")
	if n := len(m.messages.filtered); n != 769 {
		t.Fatalf("filter kept %d", n)
	}
}

func containsLine(s, sub string) bool {
	for _, l := range splitLines(s) {
		if contains(l, sub) {
			return true
		}
	}
	return false
}
