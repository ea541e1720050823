package theme

import (
	"fmt"
	"image/color"

	"charm.land/glamour/v2/ansi"
)

// Markdown is the glamour style the HTML reader lays mail out with (see
// tui/htmltext): the theme's colours for the dark and light themes; without
// colours (NO_COLOR) glamour's ASCII style, with bold, italic and
// strikethrough as terminal attributes instead of markup characters. No
// margins: the reader's pane has its own.
func (t Theme) Markdown() ansi.StyleConfig {
	if t.NoColor {
		return monoMarkdown()
	}
	p := lightPalette()
	if t.Dark {
		p = darkPalette()
	}
	return colourMarkdown(p)
}

// PlainMarkdown is the style of text written where there is no terminal
// (`sandview email show --html` into a pipe): glamour's ASCII style with no
// margins. It uses no attributes at all, so what the attributes say is
// written as markup: **bold**, *italic*, ~~struck~~, # Heading.
func PlainMarkdown() ansi.StyleConfig {
	cfg := asciiMarkdown()
	cfg.Strong = ansi.StylePrimitive{BlockPrefix: "**", BlockSuffix: "**"}
	cfg.Emph = ansi.StylePrimitive{BlockPrefix: "*", BlockSuffix: "*"}
	cfg.Strikethrough = ansi.StylePrimitive{BlockPrefix: "~~", BlockSuffix: "~~"}
	cfg.H1.Prefix, cfg.H2.Prefix, cfg.H3.Prefix = "# ", "## ", "### "
	cfg.H4.Prefix, cfg.H5.Prefix, cfg.H6.Prefix = "#### ", "##### ", "###### "
	return cfg
}

// asciiMarkdown is the layout every style shares: no margins, ASCII
// bullets and rules, quotes and lists indented.
func asciiMarkdown() ansi.StyleConfig {
	var zero uint
	return ansi.StyleConfig{
		Document:       ansi.StyleBlock{Margin: &zero},
		BlockQuote:     ansi.StyleBlock{Indent: uintPtr(1), IndentToken: strPtr("| ")},
		List:           ansi.StyleList{LevelIndent: 2},
		Heading:        ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{BlockSuffix: "\n"}},
		HorizontalRule: ansi.StylePrimitive{Format: "\n--------\n"},
		Item:           ansi.StylePrimitive{BlockPrefix: "* "},
		Enumeration:    ansi.StylePrimitive{BlockPrefix: ". "},
		Task:           ansi.StyleTask{Ticked: "[x] ", Unticked: "[ ] "},
		Code:           ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "`", Suffix: "`"}},
		CodeBlock:      ansi.StyleCodeBlock{StyleBlock: ansi.StyleBlock{Margin: uintPtr(2)}},
		Table:          ansi.StyleTable{CenterSeparator: strPtr("+"), ColumnSeparator: strPtr("|"), RowSeparator: strPtr("-")},
		ImageText:      ansi.StylePrimitive{Format: "[image: {{.text}}]"},
		DefinitionDescription: ansi.StylePrimitive{
			BlockPrefix: "\n  ",
		},
	}
}

// monoMarkdown carries emphasis with attributes only, as the mono styles do.
func monoMarkdown() ansi.StyleConfig {
	cfg := asciiMarkdown()
	cfg.Heading.Bold = boolPtr(true)
	cfg.H1.Underline = boolPtr(true)
	cfg.Strong = ansi.StylePrimitive{Bold: boolPtr(true)}
	cfg.Emph = ansi.StylePrimitive{Italic: boolPtr(true)}
	cfg.Strikethrough = ansi.StylePrimitive{CrossedOut: boolPtr(true)}
	cfg.Link = ansi.StylePrimitive{Underline: boolPtr(true)}
	cfg.LinkText = cfg.Link
	return cfg
}

// colourMarkdown lays out like the ASCII style, in the palette's colours,
// with box-drawing quotes, bullets and table rules.
func colourMarkdown(p palette) ansi.StyleConfig {
	cfg := asciiMarkdown()
	// No colour on blocks: glamour pads every line to the width with spaces in the block's style.
	// Nor on text: the terminal's own colour costs no sequences.
	cfg.BlockQuote.IndentToken = strPtr("│ ")
	cfg.Heading.Color, cfg.Heading.Bold = hex(p.accent), boolPtr(true)
	cfg.H1.Prefix, cfg.H1.Suffix = " ", " "
	cfg.H1.Color, cfg.H1.BackgroundColor = hex(p.accentText), hex(p.accent)
	cfg.H2.Underline = boolPtr(true)
	cfg.H6.Color = hex(p.muted)
	cfg.Strong = ansi.StylePrimitive{Bold: boolPtr(true)}
	cfg.Emph = ansi.StylePrimitive{Italic: boolPtr(true)}
	cfg.Strikethrough = ansi.StylePrimitive{CrossedOut: boolPtr(true)}
	cfg.HorizontalRule = ansi.StylePrimitive{Color: hex(p.faint), Format: "\n────────\n"}
	cfg.Item.BlockPrefix = "• "
	cfg.Link = ansi.StylePrimitive{Color: hex(p.accent), Underline: boolPtr(true)}
	cfg.LinkText = ansi.StylePrimitive{Color: hex(p.accent)}
	cfg.Code = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: hex(p.info), BackgroundColor: hex(p.barBg)}}
	cfg.CodeBlock.Color = hex(p.info)
	cfg.Table = ansi.StyleTable{CenterSeparator: strPtr("┼"), ColumnSeparator: strPtr("│"), RowSeparator: strPtr("─")}
	cfg.Table.Color = hex(p.fg)
	cfg.ImageText.Color = hex(p.muted)
	return cfg
}

// hex writes a colour as glamour reads it.
func hex(c color.Color) *string {
	r, g, b, _ := c.RGBA()
	s := fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
	return &s
}

func strPtr(s string) *string { return &s }
func uintPtr(u uint) *uint    { return &u }
func boolPtr(b bool) *bool    { return &b }
