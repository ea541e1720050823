package keys

import (
	"slices"
	"testing"

	"charm.land/bubbles/v2/key"
)

// TestNoDuplicateKeys checks that no key triggers two actions of the main
// screen, but for the reader's n, which finds rather than makes an inbox
// while the reader has the keyboard.
func TestNoDuplicateKeys(t *testing.T) {
	k := Default()
	readerOnly := map[string]bool{}
	for _, b := range []key.Binding{k.NextMatch, k.PrevMatch} {
		for _, name := range b.Keys() {
			readerOnly[name] = true
		}
	}
	seen := map[string]string{}
	for _, g := range k.Groups() {
		for _, b := range g.Bindings {
			for _, name := range b.Keys() {
				prev, dup := seen[name]
				if dup && prev != b.Help().Desc && !readerOnly[name] {
					t.Errorf("key %q bound to %q and %q", name, prev, b.Help().Desc)
				}
				seen[name] = b.Help().Desc
			}
		}
	}
	for _, want := range []string{"up", "k", "down", "j", "tab", "shift+tab", "enter", "esc", "1", "6", "n", "d", "r", "y", "o", "s", "/", "?", "q", "ctrl+c", "h", "u", "e", "i", "w",
		"space", "x", "*", "M", "D", "S", "J", "K", "N", "|", "!", "ctrl+d", "ctrl+u"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("key %q is not bound", want)
		}
	}
	if slices.Contains(k.PageDown.Keys(), "space") {
		t.Error("space pages down: it marks messages")
	}
}

// TestEveryBindingHasHelp checks that every binding can be shown in help.
func TestEveryBindingHasHelp(t *testing.T) {
	groups := [][]key.Binding{DefaultForm().ShortHelp(), DefaultPrompt().ShortHelp(), DefaultConfirm().ShortHelp(),
		DefaultWebhook().ShortHelp(), DefaultWebhookForm().ShortHelp()}
	groups = append(groups, Default().FullHelp()...)
	groups = append(groups, DefaultWebhook().FullHelp()...)
	groups = append(groups, DefaultWebhookForm().FullHelp()...)
	for _, g := range groups {
		for _, b := range g {
			if b.Help().Key == "" || b.Help().Desc == "" || len(b.Keys()) == 0 {
				t.Errorf("binding %v lacks keys or help", b.Keys())
			}
		}
	}
}

// TestWebhookKeysDistinct checks that no key triggers two actions of the
// webhooks view, and that every action of the issue has a key.
func TestWebhookKeysDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, column := range DefaultWebhook().FullHelp() {
		for _, b := range column {
			for _, name := range b.Keys() {
				if prev, dup := seen[name]; dup {
					t.Errorf("key %q bound to %q and %q", name, prev, b.Help().Desc)
				}
				seen[name] = b.Help().Desc
			}
		}
	}
	for _, want := range []string{"n", "e", "t", "R", "x", "d", "s", "l", "c", "r", "w", "esc", "enter", "tab", "?", "q"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("key %q is not bound in the webhooks view", want)
		}
	}
}

// TestWebhookFormKeysLeaveEditingAlone checks that the form's own keys do
// not shadow the line-editing keys of its text fields.
func TestWebhookFormKeysLeaveEditingAlone(t *testing.T) {
	edit := map[string]bool{}
	e := DefaultEdit()
	for _, b := range []key.Binding{e.Left, e.Right, e.Home, e.End, e.Backspace, e.Delete, e.DeleteToStart, e.DeleteWord} {
		for _, name := range b.Keys() {
			edit[name] = true
		}
	}
	f := DefaultWebhookForm()
	for _, b := range []key.Binding{f.Next, f.Prev, f.AddRule, f.RemoveRule, f.Submit, f.Cancel} {
		for _, name := range b.Keys() {
			if edit[name] {
				t.Errorf("form key %q (%s) is also a line-editing key", name, b.Help().Desc)
			}
		}
	}
}

// TestTextInputTakesOnlyTheEditKeys checks that a text field reacts to the
// line-editing keys and to nothing else: every other action of the widget
// is off, so it cannot shadow a form's or the program's keys.
func TestTextInputTakesOnlyTheEditKeys(t *testing.T) {
	e := DefaultEdit()
	edit := map[string]bool{}
	for _, b := range []key.Binding{e.Left, e.Right, e.Home, e.End, e.Backspace, e.Delete, e.DeleteToStart, e.DeleteWord} {
		for _, name := range b.Keys() {
			edit[name] = true
		}
	}
	ti := e.TextInput()
	for _, b := range []key.Binding{ti.CharacterForward, ti.CharacterBackward, ti.WordForward, ti.WordBackward,
		ti.DeleteWordBackward, ti.DeleteWordForward, ti.DeleteAfterCursor, ti.DeleteBeforeCursor,
		ti.DeleteCharacterBackward, ti.DeleteCharacterForward, ti.LineStart, ti.LineEnd, ti.Paste,
		ti.AcceptSuggestion, ti.NextSuggestion, ti.PrevSuggestion} {
		if !b.Enabled() {
			continue
		}
		for _, name := range b.Keys() {
			if !edit[name] {
				t.Errorf("the text input reacts to %q, which is not a line-editing key", name)
			}
		}
	}
	if ti.Paste.Enabled() || ti.AcceptSuggestion.Enabled() {
		t.Error("clipboard reads or suggestions are on")
	}
}

// TestListKeysAreShared checks that both screens move through lists with
// the same keys.
func TestListKeysAreShared(t *testing.T) {
	main, hooks := Default().ListKeyMap, DefaultWebhook().ListKeyMap
	for i, b := range main.ShortHelp() {
		if got := hooks.ShortHelp()[i]; b.Help() != got.Help() || len(b.Keys()) != len(got.Keys()) {
			t.Errorf("list key %q differs on the webhooks screen: %q", b.Help().Key, got.Help().Key)
		}
	}
}
