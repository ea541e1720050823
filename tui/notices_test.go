package tui

import (
	"context"
	"strings"
	"testing"
)

// TestNoticesReachStatusAndLog: a notice (the local server's SMTP
// refusal) shows in the status bar and stays in the ! log, sanitized.
func TestNoticesReachStatusAndLog(t *testing.T) {
	h := newHarness(t, 200, 40, true)
	notices := make(chan string, 1)
	notices <- "SMTP 552 refused mail from big@example.org\x1b[31m (client 127.0.0.1): the message exceeds the size limit of 10485760 bytes"
	h.Run(waitNotice(context.Background(), notices))
	if view := h.plain(); !strings.Contains(view, "SMTP 552 refused mail from big@example.org") || strings.Contains(view, "\x1b[31m") {
		t.Fatalf("the status bar does not show the refusal:\n%s", view)
	}
	h.expireStatus()
	h.Press("!")
	if view := h.plain(); !strings.Contains(view, "552 refused mail from big@example.org") || strings.Contains(view, "Nothing yet.") {
		t.Fatalf("the log does not hold the refusal:\n%s", view)
	}
}
