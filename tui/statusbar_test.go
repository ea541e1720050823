package tui

import (
	"errors"
	"strings"
	"testing"

	"sandview/tui/desktop"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// TestStatusBarKeepsTheCounts: at 80 columns a status message does not
// cut the counts: the server label goes first, then the message is cut.
func TestStatusBarKeepsTheCounts(t *testing.T) {
	ctx := tuitest.Context(true)
	ctx.Flash("new mail in demo@sandbox.test", ui.LevelSuccess)
	for _, width := range []int{80, 100} {
		bar := tuitest.Plain(statusBar(ctx, "local 127.0.0.1:8025", connState{kind: connConnecting}, totals{emails: 5, unread: 5, inboxes: 3}, width))
		if !strings.Contains(bar, "5 emails · 5 unread") || !strings.Contains(bar, "new mail in demo@sandbox.test") {
			t.Fatalf("width %d: %q", width, bar)
		}
		tuitest.RequireSize(t, bar, width, 1)
	}
	ctx.Flash(strings.Repeat("a long error message ", 10), ui.LevelError)
	bar := tuitest.Plain(statusBar(ctx, "local 127.0.0.1:8025", connState{kind: connLive}, totals{emails: 5, unread: 5, inboxes: 3}, 80))
	if !strings.Contains(bar, "5 unread") || !strings.Contains(bar, "a long error message a") {
		t.Fatalf("a long message: %q", bar)
	}
}

// TestStatusBarKeepsTheWayOutAt80Columns: the status of a link the
// desktop's opener failed to open keeps its way out at 80 columns.
func TestStatusBarKeepsTheWayOutAt80Columns(t *testing.T) {
	ctx := tuitest.Context(true)
	failed := &desktop.OpenError{Program: "xdg-open", Err: errors.New("exit status 3"), Target: "https://example.org/a/long/link"}
	ctx.Flash(failed.Brief("y copies the link"), ui.LevelError)
	bar := tuitest.Plain(statusBar(ctx, "local 127.0.0.1:8025", connState{kind: connLive}, totals{emails: 12, unread: 3, inboxes: 2}, 80))
	if !strings.Contains(bar, "xdg-open failed: y copies the link") {
		t.Fatalf("the way out is cut: %q", bar)
	}
}
