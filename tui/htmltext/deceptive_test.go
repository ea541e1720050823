package htmltext

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"sandview/theme"
)

// TestDeceptiveLinkFlagged: a link whose text names another host than its
// target (a zero-width space hiding in the text) gets the warning naming
// the real host next to it, in every layout, and Page.Deception has it; a
// link whose text is its host, or is not a host, is not flagged.
func TestDeceptiveLinkFlagged(t *testing.T) {
	body := `<p>Hello <a href="https://evil.test/x">https://pay` + "\u200b" + `pal.com/login</a>,
		<a href="https://example.org/">example.org</a>, <a href="https://ex.test/">Read more</a>.</p>`
	const warning = "(⚠ link goes to evil.test, not paypal.com)"
	dark := theme.New(true, false).Markdown()
	for name, opts := range map[string]Options{"plain": {}, "styled": {Style: &dark, Hyperlinks: true}} {
		p := Prepare(body, opts)
		text := strings.Join(strings.Fields(ansi.Strip(p.Render(200).Text)), " ")
		if !strings.Contains(text, "https://paypal.com/login [1] "+warning) {
			t.Errorf("%s: no warning next to the link:\n%s", name, text)
		}
		if strings.Count(text, "⚠") != 1 {
			t.Errorf("%s: %d warnings, want 1:\n%s", name, strings.Count(text, "⚠"), text)
		}
		d, ok := p.Deception("https://evil.test/x")
		if !ok || d.Real != "evil.test" || d.Shown != "paypal.com" {
			t.Errorf("%s: Deception = %+v, %v", name, d, ok)
		}
		for _, honest := range []string{"https://example.org/", "https://ex.test/"} {
			if d, ok := p.Deception(honest); ok {
				t.Errorf("%s: %s flagged: %+v", name, honest, d)
			}
		}
	}
	// The plain-text fallback (too deep to lay out) flags it too.
	deep := strings.Repeat("<ul><li>", maxNesting+1) + body
	r := Render(deep, 200, Options{})
	if r.Problem == "" || !strings.Contains(strings.Join(strings.Fields(r.Text), " "), warning) {
		t.Errorf("fallback (%q): no warning:\n%s", r.Problem, r.Text)
	}
	large := body + strings.Repeat("<p>filler</p>", maxLayoutBytes/13+1)
	r = Render(large, 200, Options{})
	if r.Problem == "" || !strings.Contains(strings.Join(strings.Fields(r.Text), " "), warning) {
		t.Errorf("text only (%q): no warning", r.Problem)
	}
}
