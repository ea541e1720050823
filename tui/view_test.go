package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"sandview/client"
	"sandview/theme"
	"sandview/tui/tuitest"
)

// openFirst focuses the email list and opens the first email.
func openFirst(h *harness) { h.Press("enter") }

func TestGoldenViews(t *testing.T) {
	sizes := [][2]int{{80, 24}, {120, 40}, {200, 50}}
	for _, dark := range []bool{true, false} {
		for _, size := range sizes {
			name := fmt.Sprintf("%dx%d_%s", size[0], size[1], map[bool]string{true: "dark", false: "light"}[dark])
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, size[0], size[1], dark)
				openFirst(h)
				golden.RequireEqual(t, h.rendered())
			})
		}
	}
}

func TestGoldenScreens(t *testing.T) {
	cases := map[string]func(h *harness){
		"inboxes":     func(h *harness) {},
		"auth_tab":    func(h *harness) { openFirst(h); h.Press("6") },
		"headers_tab": func(h *harness) { openFirst(h); h.Press("2") },
		"links_tab":   func(h *harness) { openFirst(h); h.Press("3", "down") },
		"attachments": func(h *harness) { openFirst(h); h.Press("4") },
		"raw_tab":     func(h *harness) { openFirst(h); h.Press("5") },
		"hostile":     func(h *harness) { h.Press("down", "enter") },
		"problem":     func(h *harness) { h.Press("down", "down", "enter") },
		"filter":      func(h *harness) { h.Press("/"); h.Type("alice") },
		"create_form": func(h *harness) { h.Press("n") },
		"chaos_form":  func(h *harness) { h.Press("C") },
		"help":        func(h *harness) { h.Press("?") },
		"confirm":     func(h *harness) { h.Press("d") },
		"html_toggle": func(h *harness) { openFirst(h); h.Press("h") },
	}
	for name, setup := range cases {
		for _, size := range [][2]int{{70, 24}, {100, 30}, {140, 40}} {
			t.Run(fmt.Sprintf("%s_%dx%d", name, size[0], size[1]), func(t *testing.T) {
				h := newHarness(t, size[0], size[1], true)
				setup(h)
				golden.RequireEqual(t, h.rendered())
			})
		}
	}
}

func TestGoldenNoColor(t *testing.T) {
	h := newHarness(t, 120, 40, true)
	h.app.set.NoColor = true
	h.app.ctx.Theme = theme.New(true, true)
	openFirst(h)
	out := h.rendered()
	if strings.Contains(out, "38;5;") || strings.Contains(out, "48;5;") || strings.Contains(out, "38;2;") {
		t.Fatalf("NO_COLOR view holds colours")
	}
	golden.RequireEqual(t, out)
}

func TestGoldenWebhooks(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			name := fmt.Sprintf("%dx%d_%s", size[0], size[1], map[bool]string{true: "dark", false: "light"}[dark])
			t.Run(name, func(t *testing.T) {
				h := newWebhookHarness(t, size[0], size[1], dark)
				withDeliveries(h)
				golden.RequireEqual(t, h.rendered())
			})
		}
	}
}

func TestGoldenWebhookScreens(t *testing.T) {
	cases := map[string]func(h *harness){
		"deliveries":  func(h *harness) { withDeliveries(h); h.Press("tab", "tab") },
		"inbox_hook":  func(h *harness) { h.Press("G", "s") },
		"create_form": func(h *harness) { h.Press("n") },
		"edit_form":   func(h *harness) { h.Press("G", "e") },
		"form_errors": func(h *harness) {
			h.svc.RejectWebhooks(&client.InvalidWebhookError{Problems: []client.Problem{{Field: "url", Text: "url must use https (http is allowed only when the server sets SVC_WEBHOOK_ALLOW_HTTP)"}}})
			h.Press("n", "tab")
			h.Ctrl('u')
			h.Type("http://insecure.test/h")
			h.Press("enter")
		},
		"test_result": func(h *harness) { h.Press("t") },
		"rotated":     func(h *harness) { h.Press("R", "y") },
		"confirm":     func(h *harness) { h.Press("d") },
		"help":        func(h *harness) { h.Press("?") },
		"receiver_error": func(h *harness) {
			h.Send(webhooksReceiverRefused())
			h.expireStatus()
			h.Press("tab", "tab")
		},
	}
	for name, setup := range cases {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			t.Run(fmt.Sprintf("%s_%dx%d", name, size[0], size[1]), func(t *testing.T) {
				h := newWebhookHarness(t, size[0], size[1], true)
				setup(h)
				golden.RequireEqual(t, h.rendered())
			})
		}
	}
}

func TestGoldenWebhooksEmpty(t *testing.T) {
	h := newHarness(t, 80, 24, true)
	h.Press("w")
	golden.RequireEqual(t, h.rendered())
}

// TestGoldenQAWorkflow draws the help, a search across inboxes and a set
// of marked messages (with the confirmation naming their number) at the
// sizes the issue measured.
func TestGoldenQAWorkflow(t *testing.T) {
	cases := map[string]func(h *harness){
		"help": func(h *harness) { h.Press("?") },
		"search": func(h *harness) {
			h.Press("/")
			h.Type("in:all -is:read e")
			h.Press("enter")
		},
		"marks": func(h *harness) { h.Press("space", "space", "d") },
	}
	for name, setup := range cases {
		for _, size := range [][2]int{{60, 20}, {80, 24}, {120, 40}, {200, 50}} {
			t.Run(fmt.Sprintf("%s_%dx%d", name, size[0], size[1]), func(t *testing.T) {
				h := newHarness(t, size[0], size[1], true)
				setup(h)
				tuitest.RequireSize(t, h.view(), size[0], size[1])
				golden.RequireEqual(t, h.rendered())
			})
		}
	}
}
