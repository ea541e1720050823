// Package inbox is the `sandview inbox` commands: create, list, delete,
// export, import, attach and forget inboxes in the keystore, and set a
// catch-all's chaos. The root command (internal/cli) adds them with
// NewCommand.
package inbox

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
)

func NewCommand(g *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "inbox", Short: "Create, list, delete, export, import, attach and forget inboxes; set their chaos"}
	cmd.AddCommand(newInboxCreateCommand(g), newInboxListCommand(g), newInboxDeleteCommand(g),
		newInboxExportCommand(g), newInboxImportCommand(g), newInboxAttachCommand(g), newInboxForgetCommand(g),
		newInboxChaosCommand(g))
	return cmd
}

// View is how the CLI prints an inbox. EmailAuth is null when it is
// not known: an inbox attached by address, or imported from an export
// that does not say.
type View struct {
	EmailAddress string    `json:"emailAddress"`
	ExpiresAt    time.Time `json:"expiresAt"`
	InboxHash    string    `json:"inboxHash"`
	Encrypted    bool      `json:"encrypted"`
	EmailAuth    *bool     `json:"emailAuth"`
	Expired      bool      `json:"expired"`
}

// viewOf is how an inbox in the export format is printed (an unreadable
// expiry stays zero).
func viewOf(d model.ExportedInbox) View {
	expires, _ := client.ParseTimestamp(d.ExpiresAt)
	return View{EmailAddress: d.EmailAddress, ExpiresAt: expires, InboxHash: d.InboxHash,
		Encrypted: d.Encrypted, EmailAuth: d.EmailAuth, Expired: model.Inbox{ExpiresAt: expires}.IsExpired(time.Now())}
}

// authText is what the CLI prints for an inbox's emailAuth setting.
func authText(auth *bool) string {
	if auth == nil {
		return "unknown"
	}
	return strconv.FormatBool(*auth)
}

func newInboxCreateCommand(g *cmdutil.Factory) *cobra.Command {
	var (
		ttl, address     string
		plain, encrypted bool
		noAuth, asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create an inbox and save it to the keystore",
		Example: `  sandview inbox create
  sandview inbox create --ttl 2h --plain --no-auth
  sandview inbox create --address qa-run-17@sandbox.test --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if plain && encrypted {
				return cmdutil.UsageError{Msg: "--plain and --encrypted exclude each other"}
			}
			opts := client.CreateInboxOptions{EmailAddress: address}
			if ttl != "" {
				d, err := model.ParseTTL(ttl)
				if err != nil {
					return cmdutil.UsageError{Msg: "--" + err.Error()}
				}
				opts.TTL = d
			}
			switch {
			case plain:
				opts.Encryption = model.EncryptionPlain
			case encrypted:
				opts.Encryption = model.EncryptionEncrypted
			}
			if noAuth {
				off := false
				opts.EmailAuth = &off
			}
			s, err := g.Connect(cmd.Context())
			if err != nil {
				return err
			}
			defer s.Close()
			in, err := s.Client.CreateInbox(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return keepAndPrint(cmd, s, asJSON, in)
		},
	}
	f := cmd.Flags()
	f.StringVar(&ttl, "ttl", "", "time to live: a duration (90m, 2h) or seconds (3600)")
	f.StringVar(&address, "address", "", "desired address or domain")
	f.BoolVar(&plain, "plain", false, "store mail unencrypted")
	f.BoolVar(&encrypted, "encrypted", false, "store mail encrypted to this inbox's key")
	f.BoolVar(&noAuth, "no-auth", false, "skip SPF/DKIM/DMARC/reverse-DNS checks")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newInboxListCommand(g *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the inboxes in the keystore for this server",
		Example: "  sandview inbox list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := g.Connect(cmd.Context())
			if err != nil {
				return err
			}
			defer s.Close()
			stored, loadErr := s.Keystore.Load()
			views := make([]View, 0, len(stored))
			for _, st := range stored {
				views = append(views, viewOf(st.Data))
			}
			if err := printInboxes(cmd.OutOrStdout(), asJSON, false, views...); err != nil {
				return err
			}
			return loadErr
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printInboxes(w io.Writer, asJSON, single bool, views ...View) error {
	if asJSON {
		if single && len(views) == 1 {
			return cmdutil.PrintJSON(w, views[0])
		}
		return cmdutil.PrintJSON(w, views)
	}
	if single && len(views) == 1 {
		v := views[0]
		fmt.Fprintf(w, "emailAddress: %s\nexpiresAt:    %s\ninboxHash:    %s\nencrypted:    %t\nemailAuth:    %s\n",
			termtext.SanitizeLine(v.EmailAddress), v.ExpiresAt.Format(time.RFC3339), v.InboxHash, v.Encrypted, authText(v.EmailAuth))
		return nil
	}
	if len(views) == 0 {
		fmt.Fprintln(w, "no inboxes in the keystore; create one with `sandview inbox create`")
		return nil
	}
	tab := &cmdutil.Table{}
	tab.Add("ADDRESS", "EXPIRES", "ENCRYPTED", "AUTH", "STATE")
	for _, v := range views {
		state := "active"
		if v.Expired {
			state = "expired"
		}
		tab.Add(v.EmailAddress, v.ExpiresAt.Local().Format("2006-01-02 15:04"), strconv.FormatBool(v.Encrypted), authText(v.EmailAuth), state)
	}
	return tab.Write(w)
}

func newInboxDeleteCommand(g *cmdutil.Factory) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "delete [ADDRESS]",
		Short: "Delete an inbox (or --all) on the server and from the keystore",
		Example: `  sandview inbox delete qa-run-17@sandbox.test
  sandview inbox delete --all`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return cmdutil.UsageError{Msg: "give one ADDRESS or --all"}
			}
			s, err := g.Connect(cmd.Context())
			if err != nil {
				return err
			}
			defer s.Close()
			if all {
				n, err := s.Client.DeleteAllInboxes(cmd.Context())
				if err != nil {
					return err
				}
				stored, _ := s.Keystore.Load()
				for _, st := range stored {
					if err := s.Keystore.Remove(st.Data.EmailAddress); err != nil {
						return err
					}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", model.Plural(n, "inbox", "inboxes"))
				return nil
			}
			address := strings.TrimSpace(args[0])
			if err := s.Client.DeleteInbox(cmd.Context(), address); err != nil {
				return err
			}
			if err := s.Keystore.Remove(address); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", termtext.SanitizeLine(address))
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "delete every inbox of this API key")
	return cmd
}

func newInboxExportCommand(g *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "export ADDRESS [FILE]",
		Short: "Export an inbox with its secret key (to FILE, 0600, or stdout)",
		Example: `  sandview inbox export qa@sandbox.test qa.json
  sandview inbox export qa@sandbox.test > qa.json`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.Connect(cmd.Context())
			if err != nil {
				return err
			}
			defer s.Close()
			in, err := s.Inbox(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if len(args) == 2 {
				if err := s.Client.ExportInboxToFile(in, args[1]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "exported %s to %s (it holds the secret key: keep it private)\n", in.Address(), args[1])
				return nil
			}
			data, err := in.Export()
			if err != nil {
				return err
			}
			return cmdutil.PrintJSON(cmd.OutOrStdout(), data)
		},
	}
}

func newInboxImportCommand(g *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Import an exported inbox into the keystore",
		Example: `  sandview inbox import qa.json
  cat qa.json | sandview inbox import -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var data []byte
			var err error
			if args[0] == "-" {
				data, err = io.ReadAll(cmd.InOrStdin())
			} else {
				data, err = os.ReadFile(args[0])
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", args[0], err)
			}
			s, err := g.Connect(cmd.Context())
			if err != nil {
				return err
			}
			defer s.Close()
			d, err := client.ValidateExport(data)
			if err != nil {
				return err
			}
			if in, ok := s.Client.Inbox(d.EmailAddress); ok {
				// Importing what the keystore holds is a no-op; another
				// inbox of the same address would replace its key.
				same, err := sameExport(in, d)
				if err != nil {
					return err
				}
				if !same {
					return fmt.Errorf("the keystore holds another inbox %s (other keys): `sandview inbox forget %s` first to replace it", termtext.SanitizeLine(in.Address()), termtext.SanitizeLine(in.Address()))
				}
				return printKept(cmd, asJSON, in)
			}
			in, err := s.Client.ImportInbox(cmd.Context(), data)
			if err != nil {
				return err
			}
			return keepAndPrint(cmd, s, asJSON, in)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
