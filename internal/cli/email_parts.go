package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/internal/desktop"
	"sandview/model"
)

// withEmail connects, picks the inbox and fetches one email for a command.
func withEmail(cmd *cobra.Command, g *globalOptions, address, id string, fn func(model.Email) error) error {
	return withInbox(cmd, g, address, func(in *client.Inbox) error {
		e, err := in.Email(cmd.Context(), id)
		if err != nil {
			return err
		}
		if e.Problem != "" {
			return fmt.Errorf("email %s cannot be read: %s", model.SanitizeLine(id), model.SanitizeLine(e.Problem))
		}
		return fn(e)
	})
}

func newEmailAttachmentsCommand(g *globalOptions, inbox *string) *cobra.Command {
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
				return usageError{"--save and --all exclude each other"}
			}
			if save < 0 {
				return usageError{"--save takes an attachment's number (1, 2, ...)"}
			}
			return withEmail(cmd, g, *inbox, args[0], func(e model.Email) error {
				out := cmd.OutOrStdout()
				switch {
				case all:
					return saveAttachments(out, dir, e.Attachments...)
				case save > 0:
					if save > len(e.Attachments) {
						return usageError{fmt.Sprintf("--save %d: the email has %d attachment(s)", save, len(e.Attachments))}
					}
					return saveAttachments(out, dir, e.Attachments[save-1])
				case asJSON:
					return printJSON(out, emailViewOf(e).Attachments)
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
	tab := &table{}
	tab.add("N", "FILENAME", "TYPE", "SIZE")
	for i, a := range attachments {
		tab.add(strconv.Itoa(i+1), a.Filename, a.ContentType, strconv.FormatInt(a.Size, 10))
	}
	return tab.write(w)
}

func saveAttachments(w io.Writer, dir string, attachments ...model.Attachment) error {
	if len(attachments) == 0 {
		_, err := fmt.Fprintln(w, "no attachments")
		return err
	}
	for _, a := range attachments {
		path, err := desktop.SaveUnique(dir, a.Filename, "attachment", a.Content, 0o644)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "saved %s (%d bytes)\n", model.SanitizeLine(path), len(a.Content))
	}
	return nil
}

func newEmailLinksCommand(g *globalOptions, inbox *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "links ID",
		Short:   "Print the links of an email, one a line (--json: an array)",
		Example: "  sandview email links 3f1c… | grep reset\n  sandview email links 3f1c… --json | jq -r '.[0]'",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEmail(cmd, g, *inbox, args[0], func(e model.Email) error {
				if asJSON {
					return printJSON(cmd.OutOrStdout(), append([]string{}, e.Links...))
				}
				for _, link := range e.Links {
					if _, err := fmt.Fprintln(cmd.OutOrStdout(), model.SanitizeLine(link)); err != nil {
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

func newEmailOpenCommand(g *globalOptions, inbox *string) *cobra.Command {
	return &cobra.Command{
		Use:   "open ID",
		Short: "Open the HTML part of an email in the browser, remote content blocked",
		Long: `Open the HTML part of an email in the browser ($BROWSER, else the desktop's
opener). It is written to a private file (0600) in the temporary directory
behind a content security policy: the page loads nothing from the network
and runs no script, so opening it tells the sender nothing.`,
		Example: "  sandview email open 3f1c…",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEmail(cmd, g, *inbox, args[0], func(e model.Email) error {
				if e.HTML == "" {
					return fmt.Errorf("email %s has no HTML part: see its text with `sandview email show %s`", model.SanitizeLine(e.ID), model.SanitizeLine(e.ID))
				}
				path, err := desktop.OpenHTML(cmd.Context(), e.HTML, desktop.Open)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "opened %s\n", path)
				return err
			})
		},
	}
}
