package tui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"sandview/client"
)

func TestGoldenWebhooks(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			name := fmt.Sprintf("%dx%d_%s", size[0], size[1], map[bool]string{true: "dark", false: "light"}[dark])
			t.Run(name, func(t *testing.T) {
				m, _ := newWebhookTestModel(t, size[0], size[1], dark)
				withDeliveries(t, m)
				golden.RequireEqual(t, rendered(t, m))
			})
		}
	}
}

func TestGoldenWebhookScreens(t *testing.T) {
	cases := map[string]func(t *testing.T, m *Model, svc *fakeService){
		"deliveries":  func(t *testing.T, m *Model, _ *fakeService) { withDeliveries(t, m); press(t, m, "tab", "tab") },
		"inbox_hook":  func(t *testing.T, m *Model, _ *fakeService) { press(t, m, "G", "s") },
		"create_form": func(t *testing.T, m *Model, _ *fakeService) { press(t, m, "n") },
		"edit_form":   func(t *testing.T, m *Model, _ *fakeService) { press(t, m, "G", "e") },
		"form_errors": func(t *testing.T, m *Model, svc *fakeService) {
			svc.hooks.reject = &client.APIError{StatusCode: 400, Message: "url must use https (http is allowed only when the server sets SVC_WEBHOOK_ALLOW_HTTP)"}
			press(t, m, "n", "tab")
			ctrl(t, m, 'u')
			typeText(t, m, "http://insecure.test/h")
			press(t, m, "enter")
		},
		"test_result": func(t *testing.T, m *Model, _ *fakeService) { press(t, m, "t") },
		"rotated":     func(t *testing.T, m *Model, _ *fakeService) { press(t, m, "R", "y") },
		"confirm":     func(t *testing.T, m *Model, _ *fakeService) { press(t, m, "d") },
		"help":        func(t *testing.T, m *Model, _ *fakeService) { press(t, m, "?") },
		"receiver_error": func(t *testing.T, m *Model, _ *fakeService) {
			d := m.hooks.data
			d.recvURL = "http://127.0.0.1:40123/hook"
			d.recvErr = "the server refused a webhook to the built-in receiver at http://127.0.0.1:40123/hook: create webhook: POST /api/webhooks: the server answered 400 Bad Request: url must use https. Only a local server (sandview --local) accepts HTTP webhooks to 127.0.0.1; a remote server cannot reach this machine's loopback."
			press(t, m, "tab", "tab")
		},
	}
	for name, setup := range cases {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			t.Run(fmt.Sprintf("%s_%dx%d", name, size[0], size[1]), func(t *testing.T) {
				m, svc := newWebhookTestModel(t, size[0], size[1], true)
				setup(t, m, svc)
				golden.RequireEqual(t, rendered(t, m))
			})
		}
	}
}

func TestGoldenWebhooksEmpty(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	press(t, m, "w")
	golden.RequireEqual(t, rendered(t, m))
}
