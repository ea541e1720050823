package tuitest

import (
	"fmt"
	"strings"
	"testing"

	"sandview/tui/ui"
)

// PaneSizes are the sizes every pane is drawn at in its golden tests.
func PaneSizes() [][2]int { return [][2]int{{30, 10}, {56, 16}, {90, 24}} }

// PaneCase builds a pane alone; Keys go to it once it is sized.
type PaneCase struct {
	Build func() ui.Component
	Keys  []string
}

// PaneGoldens builds each case at each of PaneSizes, gives it its keys
// (failing on a key the pane does not take) and checks its view: exactly
// its size, equal to its golden file.
func PaneGoldens(t *testing.T, cases map[string]PaneCase) {
	for name, c := range cases {
		for _, size := range PaneSizes() {
			t.Run(fmt.Sprintf("%s_%dx%d", name, size[0], size[1]), func(t *testing.T) {
				pane := c.Build()
				pane.SetSize(size[0], size[1])
				PressPane(t, pane, c.Keys...)
				RequireGolden(t, pane.View(), size[0], size[1])
			})
		}
	}
}

// PressPane gives keys to a pane, failing on a key it does not take.
func PressPane(t testing.TB, pane ui.Component, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, ok := pane.HandleKey(Key(n)); !ok {
			t.Fatalf("the pane did not take %q", n)
		}
	}
}

// Shown is what the user sees of a screen, without styling: its view, the
// status message and the open dialog.
func Shown(ctx *ui.Context, s ui.Screen) string {
	out := []string{s.View(), ctx.Status().Text}
	if d := ctx.Dialog(); d != nil {
		out = append(out, d.View(100, 40))
	}
	return Plain(strings.Join(out, "\n"))
}
