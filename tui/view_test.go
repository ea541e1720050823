package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"sandview/theme"
)

// openFirst focuses the message list and opens the first email.
func openFirst(t testing.TB, m *Model) {
	t.Helper()
	press(t, m, "tab", "enter")
}

func TestGoldenViews(t *testing.T) {
	sizes := [][2]int{{80, 24}, {120, 40}, {200, 50}}
	for _, dark := range []bool{true, false} {
		for _, size := range sizes {
			name := fmt.Sprintf("%dx%d_%s", size[0], size[1], map[bool]string{true: "dark", false: "light"}[dark])
			t.Run(name, func(t *testing.T) {
				m, _ := newTestModel(t, size[0], size[1], dark)
				openFirst(t, m)
				golden.RequireEqual(t, rendered(t, m))
			})
		}
	}
}

func TestGoldenScreens(t *testing.T) {
	cases := map[string]func(t *testing.T, m *Model){
		"inboxes":     func(t *testing.T, m *Model) {},
		"auth_tab":    func(t *testing.T, m *Model) { openFirst(t, m); press(t, m, "6") },
		"headers_tab": func(t *testing.T, m *Model) { openFirst(t, m); press(t, m, "2") },
		"links_tab":   func(t *testing.T, m *Model) { openFirst(t, m); press(t, m, "3", "down") },
		"attachments": func(t *testing.T, m *Model) { openFirst(t, m); press(t, m, "4") },
		"raw_tab":     func(t *testing.T, m *Model) { openFirst(t, m); press(t, m, "5") },
		"hostile":     func(t *testing.T, m *Model) { press(t, m, "tab", "down", "enter") },
		"problem":     func(t *testing.T, m *Model) { press(t, m, "tab", "down", "down", "enter") },
		"filter":      func(t *testing.T, m *Model) { press(t, m, "tab", "/"); typeText(t, m, "alice") },
		"create_form": func(t *testing.T, m *Model) { press(t, m, "n") },
		"help":        func(t *testing.T, m *Model) { press(t, m, "?") },
		"confirm":     func(t *testing.T, m *Model) { press(t, m, "tab", "d") },
		"html_toggle": func(t *testing.T, m *Model) { openFirst(t, m); press(t, m, "h") },
	}
	for name, setup := range cases {
		for _, size := range [][2]int{{70, 24}, {100, 30}, {140, 40}} {
			t.Run(fmt.Sprintf("%s_%dx%d", name, size[0], size[1]), func(t *testing.T) {
				m, _ := newTestModel(t, size[0], size[1], true)
				setup(t, m)
				golden.RequireEqual(t, rendered(t, m))
			})
		}
	}
}

func TestGoldenNoColor(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, true)
	m.opts.noColor = true
	m.sh.theme = theme.New(true, true)
	m.help.Styles = m.sh.theme.Help()
	openFirst(t, m)
	out := rendered(t, m)
	if strings.Contains(out, "38;5;") || strings.Contains(out, "48;5;") || strings.Contains(out, "38;2;") {
		t.Fatalf("NO_COLOR view holds colours")
	}
	golden.RequireEqual(t, out)
}
