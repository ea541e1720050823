package tui

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/tuitest"
)

// benchEmails are n emails, newest first; with content, each has a body of
// about 2 KB drawn from a vocabulary of a few hundred words and full auth
// results, as the list with content brings them.
func benchEmails(n int, content bool) []model.Email {
	rng := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("the invoice order shipped password reset link account confirm welcome report meeting " +
		"tomorrow delivery failed retry newsletter unsubscribe Grüße München 東京 sandbox QA run build release")
	emails := make([]model.Email, n)
	for i := range emails {
		e := model.Email{
			ID: fmt.Sprintf("id-%05d", i), From: fmt.Sprintf("Sender %d <s%d@example.com>", i%97, i),
			To: []string{tuitest.DemoAddr}, Subject: fmt.Sprintf("Message number %d about topic %d", i, i%13),
			ReceivedAt: tuitest.Now().Add(-time.Duration(i) * time.Minute), IsRead: i%3 == 0,
		}
		if content {
			var body strings.Builder
			for body.Len() < 2048 {
				body.WriteString(words[rng.IntN(len(words))])
				body.WriteByte(' ')
			}
			e.HasContent, e.Text, e.AuthResults = true, body.String(), tuitest.PassingAuth()
		}
		emails[i] = e
	}
	return emails
}

// benchHarness is the program holding n emails in the demo inbox at
// 160x50, the index prepared as the program prepares it.
func benchHarness(b *testing.B, n int, content bool) *harness {
	svc := tuitest.NewService(tuitest.Inboxes()...)
	svc.SetEmails(tuitest.DemoAddr, benchEmails(n, content))
	return newHarnessOver(b, svc, 160, 50, true)
}

// press is one key press to a rendered frame.
func (h *harness) press(k tea.KeyPressMsg) {
	next, cmd := h.app.Update(k)
	*h.app = next.(App)
	_ = cmd
	_ = h.app.View()
}

// BenchmarkKeyPressFrame10k is one key press (down, then up) to a
// rendered frame with 10,000 emails loaded.
func BenchmarkKeyPressFrame10k(b *testing.B) {
	h := benchHarness(b, 10000, false)
	down, up := tuitest.Key("down"), tuitest.Key("up")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if (i/5000)%2 == 1 {
			k = up
		}
		i++
		h.press(k)
	}
}

// BenchmarkKeyPressFrame10kSearch is a key press to a rendered frame with
// 10,000 emails with 2 KB bodies and a search active: "move" moves the
// cursor through the matches (each row marked), "type" changes the query
// (a letter typed, then taken back: every press searches all 10,000).
// The budget of a frame is 16 ms.
func BenchmarkKeyPressFrame10kSearch(b *testing.B) {
	b.Run("move", func(b *testing.B) {
		h := benchHarness(b, 10000, true)
		h.Press("/")
		h.Type("-is:read reset")
		h.Press("enter")
		if view := h.plain(); !strings.Contains(view, "matches of 10000") {
			b.Fatalf("the search matched nothing or everything:\n%s", view)
		}
		down, up := tuitest.Key("down"), tuitest.Key("up")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := down
			if (i/2000)%2 == 1 {
				k = up
			}
			i++
			h.press(k)
		}
	})
	b.Run("type", func(b *testing.B) {
		h := benchHarness(b, 10000, true)
		h.Press("/")
		h.Type("in:all password rese")
		keys := []tea.KeyPressMsg{tuitest.Key("t"), tuitest.Key("backspace")}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			h.press(keys[i%2])
			i++
		}
	})
}
