package email

import (
	"fmt"
	"io"
	"os"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/term"

	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
	"sandview/theme"
	"sandview/tui/htmltext"
)

// printHTMLBody writes the HTML part of e laid out as the reader shows it
// (`email show --html`): on a terminal at its width, in the theme for its
// background (colourless with NO_COLOR); elsewhere as plain text at 80
// columns, emphasis written as Markdown, without escape sequences.
func printHTMLBody(w io.Writer, e model.Email, noColor bool) error {
	if e.HTML == "" {
		return fmt.Errorf("email %s has no HTML part: see its text with `sandview email show %s`", termtext.SanitizeLine(e.ID), termtext.SanitizeLine(e.ID))
	}
	width, opts := 80, htmltext.Options{Links: e.Links} // numbered as `email links` and `email show` number them
	if f, ok := w.(*os.File); ok && cmdutil.IsTerminal(w) {
		if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 0 {
			width = cols
		}
		style := theme.New(lipgloss.HasDarkBackground(os.Stdin, f), noColor).Markdown()
		opts.Style = &style
	}
	r := htmltext.Render(e.HTML, width, opts)
	if r.Problem != "" {
		fmt.Fprintf(w, "(%s)\n\n", r.Problem)
	}
	_, err := fmt.Fprintln(w, r.Text)
	return err
}
