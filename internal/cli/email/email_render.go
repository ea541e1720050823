package email

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"os"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
	"sandview/internal/htmlrender"
	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/termimage"
)

func newEmailRenderCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var (
		out, browser string
		format       string
		opt          htmlrender.Options
		full         bool
	)
	cmd := &cobra.Command{
		Use:   "render ID -o FILE.png",
		Short: "Render the HTML part of an email as a PNG, as a mail client shows it (headless Chromium)",
		Long: `Render the HTML part of an email into a PNG, with its inline (cid:) images, as
a mail client shows it: a headless Chromium (--browser PATH, else
$SANDVIEW_BROWSER, else chromium on the PATH) lays it out at --width px
(375 a phone, 600 a reading pane, 1024 a desktop), light or --dark
(prefers-color-scheme), the full page (--full, the default) or its first
--height px. JavaScript is off and the browser has no network: remote
images, style sheets and fonts are blocked unless --allow-remote, and then
sandview fetches them (public addresses only) and hands them to the page.
A mail that does not finish loading in 5s is pictured as it is, with a
note on standard error. -o - writes the PNG to standard output.`,
		Example: `  sandview email render 3f1c… -o mail.png
  sandview email render 3f1c… -o phone-dark.png --width 375 --dark
  sandview email render 3f1c… --format kitty --width 375
  ssh -p 2222 box email render 3f1c… -o - > mail.png`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var proto termimage.Protocol
			if format != "" {
				p, err := termimage.ParseProtocol(format)
				if err != nil {
					return cmdutil.UsageError{Msg: "--format: " + err.Error()}
				}
				proto = p
			}
			switch {
			case out != "" && format != "":
				return cmdutil.UsageError{Msg: "-o and --format exclude each other: a file, or the picture on the terminal"}
			case out == "" && format == "":
				return cmdutil.UsageError{Msg: "-o FILE.png is required (-o - writes the PNG to standard output; --format kitty|iterm2|sixel draws it on the terminal)"}
			case full && opt.MaxHeight != 0:
				return cmdutil.UsageError{Msg: "--full and --height exclude each other"}
			case opt.Width < 100 || opt.Width > 4096:
				return cmdutil.UsageError{Msg: fmt.Sprintf("--width %d: give a width between 100 and 4096 px (375, 600, 1024)", opt.Width)}
			case opt.MaxHeight < 0:
				return cmdutil.UsageError{Msg: "--height takes a number of pixels"}
			case out == "-" && cmdutil.IsTerminal(cmd.OutOrStdout()):
				return cmdutil.UsageError{Msg: "-o - would write the PNG to the terminal: redirect it (> mail.png)"}
			}
			return withEmail(cmd, g, *inbox, args[0], func(e model.Email) error {
				if e.HTML == "" {
					return fmt.Errorf("email %s has no HTML part: see its text with `sandview email show %s`", termtext.SanitizeLine(e.ID), termtext.SanitizeLine(e.ID))
				}
				r, done := g.Renderer(browser)
				defer done()
				res, err := r.Render(cmd.Context(), htmlrender.InputOf(e), opt)
				if err != nil {
					if errors.Is(err, htmlrender.ErrNoBrowser) {
						return htmlrender.ErrNoBrowser
					}
					return err
				}
				if format != "" {
					return drawRender(cmd, res, proto, g.InTmux())
				}
				return writeRender(cmd, out, res)
			})
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "write the PNG to FILE (- for standard output)")
	f.IntVar(&opt.Width, "width", htmlrender.DefaultWidth, "viewport width in px (375, 600, 1024)")
	f.BoolVar(&opt.Dark, "dark", false, "prefers-color-scheme: dark")
	f.BoolVar(&full, "full", false, "the full page (the default; at most 16384 px)")
	f.IntVar(&opt.MaxHeight, "height", 0, "cut the picture at N px")
	f.BoolVar(&opt.AllowRemote, "allow-remote", false, "load remote images, style sheets and fonts (fetched by sandview, public addresses only)")
	f.StringVar(&format, "format", "", "draw the picture on the terminal: kitty, iterm2 or sixel (instead of -o)")
	f.StringVar(&browser, "browser", "", "the Chromium to render with (env SANDVIEW_BROWSER, else chromium on the PATH)")
	return cmd
}

// drawRender draws the picture on the terminal at the cursor with the
// graphics protocol p (through tmux's passthrough inside tmux), then a
// line break; its notes go to standard error as writeRender's.
func drawRender(cmd *cobra.Command, res htmlrender.Result, p termimage.Protocol, tmux bool) error {
	img, err := png.Decode(bytes.NewReader(res.PNG))
	if err != nil {
		return fmt.Errorf("read the picture: %w", err)
	}
	if res.Cut != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "sandview: the picture is cut: "+res.Cut)
	}
	w := cmd.OutOrStdout()
	if err := termimage.Encode(w, img, p, termimage.Place{Here: true, Tmux: tmux}); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w)
	return err
}

// writeRender writes the picture to out (- standard output) and its notes
// (cut, blocked requests) to standard error.
func writeRender(cmd *cobra.Command, out string, res htmlrender.Result) error {
	if res.Cut != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "sandview: the picture is cut: "+res.Cut)
	}
	if res.Blocked > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "sandview: %s blocked (--allow-remote loads remote content)\n", model.Plural(res.Blocked, "request", "requests"))
	}
	if out == "-" {
		_, err := cmd.OutOrStdout().Write(res.PNG)
		return err
	}
	if err := os.WriteFile(out, res.PNG, 0o644); err != nil {
		return fmt.Errorf("write the picture: %w", err)
	}
	_, err := fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%dx%d px, %s)\n", termtext.SanitizeLine(out), res.Width, res.Height, model.Plural(len(res.PNG), "byte", "bytes"))
	return err
}
