package email

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/client/linkcheck"
	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/desktop"
)

// withEmail connects, picks the inbox and fetches one email for a command.
func withEmail(cmd *cobra.Command, g *cmdutil.Factory, address, id string, fn func(model.Email) error) error {
	return withInbox(cmd, g, address, func(in *client.Inbox) error {
		e, err := readEmail(cmd.Context(), in, id)
		if err != nil {
			return err
		}
		return fn(e)
	})
}

// readEmail reads the email id of in; one that cannot be read (see
// model.Email.Problem) is an error.
func readEmail(ctx context.Context, in *client.Inbox, id string) (model.Email, error) {
	e, err := in.Email(ctx, id)
	if err != nil {
		return model.Email{}, err
	}
	if e.Problem != "" {
		return model.Email{}, fmt.Errorf("email %s cannot be read: %s", termtext.SanitizeLine(id), termtext.SanitizeLine(e.Problem))
	}
	return e, nil
}

func newEmailAttachmentsCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var (
		save   int
		all    bool
		dir    string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "attachments ID",
		Short: "List an email's attachments, or save them (--save N, --all) under safe names",
		Long: `List an email's attachments (numbered), or save one (--save N) or all (--all)
into --dir. Saved files get safe names: no path, no leading dot, no control
characters; an existing file is never overwritten (" (1)" is added).`,
		Example: `  sandview email attachments 3f1c…
  sandview email attachments 3f1c… --save 2 --dir ~/Downloads
  sandview email attachments 3f1c… --all`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if save != 0 && all {
				return cmdutil.UsageError{Msg: "--save and --all exclude each other"}
			}
			if save < 0 {
				return cmdutil.UsageError{Msg: "--save takes an attachment's number (1, 2, ...)"}
			}
			return withEmail(cmd, g, *inbox, args[0], func(e model.Email) error {
				out := cmd.OutOrStdout()
				switch {
				case all:
					return saveAttachments(out, dir, e.Attachments...)
				case save > 0:
					if save > len(e.Attachments) {
						return cmdutil.UsageError{Msg: fmt.Sprintf("--save %d: the email has %s", save, model.Plural(len(e.Attachments), "attachment", "attachments"))}
					}
					return saveAttachments(out, dir, e.Attachments[save-1])
				case asJSON:
					return cmdutil.PrintJSON(out, ViewOf(e).Attachments)
				}
				return listAttachments(out, e.Attachments)
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&save, "save", 0, "save attachment number N (as listed)")
	f.BoolVar(&all, "all", false, "save every attachment")
	f.StringVar(&dir, "dir", ".", "directory to save into")
	f.BoolVar(&asJSON, "json", false, "list as JSON")
	return cmd
}

func listAttachments(w io.Writer, attachments []model.Attachment) error {
	if len(attachments) == 0 {
		_, err := fmt.Fprintln(w, "no attachments")
		return err
	}
	tab := &cmdutil.Table{}
	tab.Add("N", "FILENAME", "TYPE", "SIZE")
	for i, a := range attachments {
		tab.Add(strconv.Itoa(i+1), a.Name(), a.ContentType, strconv.FormatInt(a.Size, 10))
	}
	return tab.Write(w)
}

func saveAttachments(w io.Writer, dir string, attachments ...model.Attachment) error {
	if len(attachments) == 0 {
		_, err := fmt.Fprintln(w, "no attachments")
		return err
	}
	for _, a := range attachments {
		path, err := desktop.SaveUnique(dir, a.Name(), "attachment", a.Content, 0o644)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "saved %s (%s)\n", termtext.SanitizeLine(path), model.Plural(len(a.Content), "byte", "bytes"))
	}
	return nil
}

func newEmailLinksCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "links ID",
		Short: "Print the links of an email, one a line (--json: an array)",
		Long: `Print the links of an email, one a line (--json: a JSON array of them).

A link of the HTML part whose text names another host than it leads to (as
"https://pay\u200bpal.com/login" over a link to another site) is flagged: its
line ends with "  ⚠ link goes to HOST, not SHOWN"; with --json the warning
goes to standard error.`,
		Example: "  sandview email links 3f1c… | grep reset\n  sandview email links 3f1c… --json | jq -r '.[0]'",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEmail(cmd, g, *inbox, args[0], func(e model.Email) error {
				deceptive := map[string]linkcheck.Deception{}
				for _, d := range linkcheck.Deceptions(e.HTML) {
					deceptive[d.Link] = d
				}
				if asJSON {
					for _, link := range e.Links {
						if d, ok := deceptive[strings.TrimSpace(link)]; ok {
							fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s: %s\n", termtext.SanitizeLine(link), d.Warning())
						}
					}
					return cmdutil.PrintJSON(cmd.OutOrStdout(), append([]string{}, e.Links...))
				}
				for _, link := range e.Links {
					line := termtext.SanitizeLine(link)
					if d, ok := deceptive[strings.TrimSpace(link)]; ok {
						line += "  " + d.Warning()
					}
					if _, err := fmt.Fprintln(cmd.OutOrStdout(), line); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of the links")
	return cmd
}

func newEmailOpenCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	return &cobra.Command{
		Use:   "open ID",
		Short: "Open the HTML part of an email in the browser, remote content blocked",
		Long: `Open the HTML part of an email in the browser ($BROWSER, else the desktop's
opener). It is written to a private file (0600) under the state directory
($SANDVIEW_HOME/opened, 0700) behind a content security policy: the page
loads nothing from the network and runs no script, so opening it tells the
sender nothing. The command waits until the opener has ended and 10s more
(the browser reads the file meanwhile), then removes the file; leftovers
of an interrupted run (older than 10 minutes) are removed by the next one.`,
		Example: "  sandview email open 3f1c…",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEmail(cmd, g, *inbox, args[0], func(e model.Email) error {
				if e.HTML == "" {
					return fmt.Errorf("email %s has no HTML part: see its text with `sandview email show %s`", termtext.SanitizeLine(e.ID), termtext.SanitizeLine(e.ID))
				}
				home, err := g.StateHome()
				if err != nil {
					return err
				}
				tmp := desktop.NewTempDir(desktop.OpenedDir(home), desktop.DefaultGrace)
				path, err := tmp.OpenHTML(cmd.Context(), "message", e.HTML, g.Open)
				if err != nil {
					return err
				}
				if _, err := fmt.Fprintf(cmd.OutOrStdout(), "opened %s (removed in %s)\n", path, desktop.DefaultGrace); err != nil {
					return err
				}
				// The browser has had the file once the grace is over.
				return tmp.Settle(cmd.Context())
			})
		},
	}
}
