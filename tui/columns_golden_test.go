package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"sandview/model"
	"sandview/tui/tuitest"
)

// orderSubject is the subject of the i-th of the order mails: all alike
// but for their end.
func orderSubject(i int) string {
	return fmt.Sprintf("Order #10234 confirmed — parcel %d of 600 ships Monday", i)
}

// orderMails are 600 near-identical order confirmations sent to the demo
// inbox, or (forOthers) each to another address, as the catch-all gets
// them; newest first.
func orderMails(forOthers bool) []model.Email {
	emails := make([]model.Email, 600)
	for i := range emails {
		to := tuitest.DemoAddr
		if forOthers {
			to = fmt.Sprintf("qa-run-%03d@example.com", i)
		}
		emails[i] = model.Email{
			ID: fmt.Sprintf("o%03d", i), From: `"Acme Shop" <orders@acme-shop.example>`, To: []string{to},
			Subject: orderSubject(i), ReceivedAt: tuitest.Now().Add(-time.Duration(i) * time.Minute), IsRead: i%2 == 1,
			HasContent: true, Text: "Thank you for your order.", AuthResults: tuitest.PassingAuth(),
		}
	}
	return emails
}

// orderHarness is the program over an inbox holding the order mails, the
// catch-all (so the list has a recipient column) when withTo.
func orderHarness(t *testing.T, width, height int, withTo bool) *harness {
	svc := tuitest.NewService(tuitest.Inboxes()...)
	svc.SetEmails(tuitest.DemoAddr, orderMails(withTo))
	return newHarnessSet(t, svc, width, height, true, func(c *Config) {
		if withTo {
			c.Settings.CatchAll = tuitest.DemoAddr
		}
	})
}

// TestGoldenOrderMails draws 600 near-identical order mails at the four
// sizes, with the recipient column and without: from 80 columns the
// subject is the widest column of the list (the sender and the recipient
// are capped and shrink first), so more of it shows the wider the
// terminal within a layout (the wide layout, from 120, gives the reader
// half the width and the list what the inboxes leave).
func TestGoldenOrderMails(t *testing.T) {
	for _, withTo := range []bool{false, true} {
		for _, size := range [][2]int{{60, 20}, {80, 24}, {120, 40}, {200, 50}} {
			name := fmt.Sprintf("%dx%d_%s", size[0], size[1], map[bool]string{true: "to", false: "no_to"}[withTo])
			t.Run(name, func(t *testing.T) {
				h := orderHarness(t, size[0], size[1], withTo)
				tuitest.RequireSize(t, h.view(), size[0], size[1])
				golden.RequireEqual(t, h.rendered())
				view := h.plain()
				// At 120 the wide layout leaves the list 30 cells: no room
				// for a recipient column (the reader names the recipient).
				if withTo && size[0] >= 80 && size[0] != 120 && !strings.Contains(view, "qa-run-") {
					t.Fatalf("the catch-all's list has no recipient column:\n%s", view)
				}
				subject, from := longestShown(view, orderSubject(0)), longestShown(view, "Acme Shop")
				if size[0] >= 80 && subject <= from {
					t.Fatalf("the subject shows %d cells, the sender %d:\n%s", subject, from, view)
				}
				t.Logf("%s: subject %d cells, sender %d", name, subject, from)
			})
		}
	}
}

// longestShown is the length of the longest prefix of want, cut or not
// (an ellipsis ends a cut one), that view shows.
func longestShown(view, want string) int {
	r := []rune(want)
	for n := len(r); n > 0; n-- {
		p := string(r[:n])
		if n == len(r) && strings.Contains(view, p) || strings.Contains(view, p+"…") {
			return n
		}
	}
	return 0
}
