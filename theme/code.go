package theme

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
)

// HighlightJSON renders JSON text as a syntax-highlighted code block in the
// theme's colours, with glamour; lines are not wrapped (the caller fits
// them to its pane). Without colours, or if rendering fails, the text comes
// back as it is.
func (t Theme) HighlightJSON(text string) string {
	if t.NoColor || text == "" {
		return text
	}
	cfg := styles.LightStyleConfig
	if t.Dark {
		cfg = styles.DarkStyleConfig
	}
	// A bare code block: no document or block margins around it.
	var zero uint
	cfg.Document.Margin, cfg.Document.BlockPrefix, cfg.Document.BlockSuffix = &zero, "", ""
	cfg.CodeBlock.Margin = &zero
	r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(0))
	if err != nil {
		return text
	}
	out, err := r.Render(codeFence(text) + "json\n" + text + "\n" + codeFence(text) + "\n")
	if err != nil {
		return text
	}
	return strings.Trim(out, "\n")
}

// codeFence is a run of backticks longer than any run inside text, so the
// text cannot end the block early.
func codeFence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
			continue
		}
		run = 0
	}
	return strings.Repeat("`", max(3, longest+1))
}
