package keys

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// Markdown is the key table of the README, made from the key maps so it
// cannot drift from them: the mail screen's groups, then the webhooks
// screen's own keys.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Where | Key | Action |\n|---|---|---|\n")
	for _, g := range Default().Groups() {
		writeRows(&b, g.Title, g.Bindings)
	}
	w := DefaultWebhook()
	writeRows(&b, "Webhooks", []key.Binding{w.New, w.Edit, w.Test, w.Rotate, w.Toggle, w.Delete, w.Reveal, w.Receiver, w.Clear, w.Reload, w.Close})
	return b.String()
}

// writeRows writes one row per binding, the group's title on the first.
func writeRows(b *strings.Builder, title string, bindings []key.Binding) {
	for i, kb := range bindings {
		where := ""
		if i == 0 {
			where = title
		}
		h := kb.Help()
		b.WriteString("| " + where + " | `" + cell(h.Key) + "` | " + cell(h.Desc) + " |\n")
	}
}

// cell escapes the table separator.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
