package htmltext

import "testing"

// TestHangListItems hangs the items that wrap, and only those, and keeps
// every other line of the Markdown as it is.
func TestHangListItems(t *testing.T) {
	for _, c := range []struct{ md, want string }{
		{
			"Intro paragraph.\n\n- short item\n- a long item whose text is much wider than the pane and wraps\n  1. nested item that is long enough to wrap as well, yes\n\nAfter the list.\n",
			"Intro paragraph.\n\n- short item\n- a long item whose text is\n  \u00a0\u00a0much wider than the pane and\n  \u00a0\u00a0wraps\n  1. nested item that is long\n     \u00a0\u00a0\u00a0enough to wrap as well,\n     \u00a0\u00a0\u00a0yes\n\nAfter the list.\n",
		},
		{"- fits\n- also fits\n", "- fits\n- also fits\n"},
		{"- a long item whose text is much wider than the pane", "- a long item whose text is\n  \u00a0\u00a0much wider than the pane"},
		{"```\n- a long item in code that is much wider than the pane\n```\n", "```\n- a long item in code that is much wider than the pane\n```\n"},
	} {
		if got := hangListItems(c.md, 30); got != c.want {
			t.Errorf("%q:\n%q, want\n%q", c.md, got, c.want)
		}
	}
}
