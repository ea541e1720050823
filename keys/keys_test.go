package keys

import (
	"testing"

	"charm.land/bubbles/v2/key"
)

// TestNoDuplicateKeys checks that no key triggers two actions of the main
// screen.
func TestNoDuplicateKeys(t *testing.T) {
	k := Default()
	seen := map[string]string{}
	for _, column := range k.FullHelp() {
		for _, b := range column {
			for _, name := range b.Keys() {
				if prev, dup := seen[name]; dup {
					t.Errorf("key %q bound to %q and %q", name, prev, b.Help().Desc)
				}
				seen[name] = b.Help().Desc
			}
		}
	}
	for _, want := range []string{"up", "k", "down", "j", "tab", "shift+tab", "enter", "esc", "1", "6", "n", "d", "r", "y", "o", "s", "/", "?", "q", "ctrl+c", "h", "u", "e", "i"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("key %q is not bound", want)
		}
	}
}

// TestEveryBindingHasHelp checks that every binding can be shown in help.
func TestEveryBindingHasHelp(t *testing.T) {
	groups := [][]key.Binding{Default().ShortHelp(), DefaultForm().ShortHelp(), DefaultPrompt().ShortHelp(), DefaultConfirm().ShortHelp()}
	groups = append(groups, Default().FullHelp()...)
	for _, g := range groups {
		for _, b := range g {
			if b.Help().Key == "" || b.Help().Desc == "" || len(b.Keys()) == 0 {
				t.Errorf("binding %v lacks keys or help", b.Keys())
			}
		}
	}
}
