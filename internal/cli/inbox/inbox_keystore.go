package inbox

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/client/keystore"
	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
)

// The inbox commands that change only the keystore, never the server:
// attach a plain inbox by its address, forget an inbox.

func newInboxAttachCommand(g *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "attach ADDRESS",
		Short: "Add a plain inbox that exists on the server (a shared catch-all) to the keystore",
		Long: `Add a plain inbox that already exists on the server, such as the catch-all
of ` + "`sandview serve --catch-all ADDRESS`" + `, to the keystore by its address: the
TUI then shows it with the others. The inbox is neither created nor changed
on the server. Commands given --inbox ADDRESS read a plain inbox without
this too. An encrypted inbox needs its export instead (inbox import).`,
		Example: "  sandview inbox attach qa@sandbox.test",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			address := strings.TrimSpace(args[0])
			return cmdutil.WithSession(cmd, g, func(s *cmdutil.Session) error {
				if in, ok := s.Client.Inbox(address); ok {
					return printKept(cmd, asJSON, in)
				}
				in, err := s.PlainInbox(cmd.Context(), address)
				if err != nil {
					return err
				}
				return keepAndPrint(cmd, s, asJSON, in)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newInboxForgetCommand(g *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "forget ADDRESS",
		Short: "Remove an inbox from the keystore only (it stays on the server)",
		Long: `Remove an inbox from the keystore without deleting it on the server (inbox
delete does both). For an encrypted inbox this throws its secret key away:
export it first if it may be needed again.`,
		Example: "  sandview inbox forget qa@sandbox.test",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			address := strings.TrimSpace(args[0])
			url, _, err := g.Target(cmd.Context())
			if err != nil {
				return err
			}
			if url == "" {
				return cmdutil.ErrNoServer
			}
			home, err := g.StateHome()
			if err != nil {
				return err
			}
			ks, err := keystore.Open(keystore.Dir(home, url))
			if err != nil {
				return err
			}
			if !ks.Has(address) {
				return fmt.Errorf("inbox %s is not in the keystore of %s (`sandview inbox list` shows what is)", termtext.SanitizeLine(address), url)
			}
			if err := ks.Remove(address); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "forgot %s (the inbox stays on the server)\n", termtext.SanitizeLine(address))
			return nil
		},
	}
}

// keepAndPrint saves an inbox the session just loaded to the keystore and
// prints it.
func keepAndPrint(cmd *cobra.Command, s *cmdutil.Session, asJSON bool, in *client.Inbox) error {
	if err := s.Save(in); err != nil {
		return err
	}
	return printInbox(cmd, asJSON, in)
}

// printKept prints an inbox the keystore holds already, saying so on
// stderr.
func printKept(cmd *cobra.Command, asJSON bool, in *client.Inbox) error {
	fmt.Fprintf(cmd.ErrOrStderr(), "sandview: %s is in the keystore already\n", termtext.SanitizeLine(in.Address()))
	return printInbox(cmd, asJSON, in)
}

// printInbox prints one inbox as its export describes it (the export
// knows whether its emailAuth setting is known).
func printInbox(cmd *cobra.Command, asJSON bool, in *client.Inbox) error {
	d, err := in.Export()
	if err != nil {
		return err
	}
	return printInboxes(cmd.OutOrStdout(), asJSON, true, viewOf(d))
}

// sameExport reports whether the loaded inbox is the one the export
// describes: same address, hash, kind and keys.
func sameExport(in *client.Inbox, d model.ExportedInbox) (bool, error) {
	have, err := in.Export()
	if err != nil {
		return false, err
	}
	return strings.EqualFold(have.EmailAddress, d.EmailAddress) && have.InboxHash == d.InboxHash &&
		have.Encrypted == d.Encrypted && have.SecretKey == d.SecretKey && have.ServerSigPk == d.ServerSigPk, nil
}
