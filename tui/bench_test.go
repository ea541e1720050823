package tui

import (
	"fmt"
	"testing"
	"time"

	"sandview/model"
	"sandview/tui/tuitest"
)

// BenchmarkKeyPressFrame10k is one key press to a rendered frame with
// 10,000 emails loaded.
func BenchmarkKeyPressFrame10k(b *testing.B) {
	emails := make([]model.Email, 10000)
	for i := range emails {
		emails[i] = model.Email{
			ID: fmt.Sprintf("id-%05d", i), From: fmt.Sprintf("Sender %d <s%d@example.com>", i%97, i),
			To: []string{tuitest.DemoAddr}, Subject: fmt.Sprintf("Message number %d about topic %d", i, i%13),
			ReceivedAt: tuitest.Now().Add(-time.Duration(i) * time.Minute), IsRead: i%3 == 0,
		}
	}
	svc := tuitest.NewService(tuitest.Inboxes()...)
	svc.SetEmails(tuitest.DemoAddr, emails)
	h := newHarnessOver(b, svc, 160, 50, true)
	down, up := tuitest.Key("down"), tuitest.Key("up")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if (i/5000)%2 == 1 {
			k = up
		}
		i++
		next, _ := h.app.Update(k)
		*h.app = next.(App)
		_ = h.app.View()
	}
}
