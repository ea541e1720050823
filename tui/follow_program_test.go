package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
)

// TestPreviewFollowsTheHighlightAfterAResize: at 60x20 (one pane at a
// time) a mail arrives while the cursor follows the top; resized to 80x24,
// the Message pane shows the highlighted new mail, not the one before.
func TestPreviewFollowsTheHighlightAfterAResize(t *testing.T) {
	h := newHarness(t, 80, 24, true)
	h.Send(tea.WindowSizeMsg{Width: 60, Height: 20})
	h.Send(feed.NewEmailMsg{Address: tuitest.DemoAddr, Email: model.Email{ID: "z", From: "app@shop.example",
		To: []string{tuitest.DemoAddr}, Subject: "Fresh arrival", ReceivedAt: tuitest.Now().Add(time.Minute),
		HasContent: true, Text: "the body of the fresh arrival"}})
	h.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := h.plain(); !strings.Contains(got, "the body of the fresh arrival") {
		t.Fatalf("the Message pane does not show the highlighted new mail:\n%s", got)
	}
}
