package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"sandview/internal/htmlcompat"
	"sandview/model"
)

// maxOffenders is how many features the text report lists.
const maxOffenders = 10

// checkView is what email check prints: the HTML compatibility report
// (nil when the email has no HTML part).
type checkView struct {
	ID   string             `json:"id"`
	HTML *htmlcompat.Report `json:"htmlCompatibility"`
}

func newEmailCheckCommand(g *globalOptions, inbox *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check ID",
		Short: "Check an email: which email clients lack the HTML and CSS features it uses",
		Long: `Check an email as QA does before sending it to the world.

HTML compatibility: the HTML and CSS features the HTML part uses that
common email clients do not support, from caniemail's data (embedded), with
a score: the share of the email clients (each client on each platform) that
render every feature used, a partly supporting client counting half.`,
		Example: "  sandview email check 3f1c…\n  sandview email check 3f1c… --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEmail(cmd, g, *inbox, args[0], func(e model.Email) error {
				v := checkView{ID: e.ID}
				if e.HTML != "" {
					data, err := htmlcompat.Default()
					if err != nil {
						return err
					}
					r := data.Check(e.HTML)
					v.HTML = &r
				}
				if asJSON {
					return printJSON(cmd.OutOrStdout(), v)
				}
				return printCheck(cmd.OutOrStdout(), v)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (every feature used, every client affected)")
	return cmd
}

// printCheck writes the text report.
func printCheck(w io.Writer, v checkView) error {
	if v.HTML == nil {
		_, err := fmt.Fprintln(w, "HTML compatibility: no HTML part")
		return err
	}
	r := v.HTML
	fmt.Fprintf(w, "HTML compatibility: %.0f%% of %d email clients render every feature used (%s)\n", r.Score, r.Clients, r.Data)
	off := r.Offenders()
	if len(off) == 0 {
		_, err := fmt.Fprintln(w, "  every feature used is supported everywhere")
		return err
	}
	for i, f := range off {
		if i == maxOffenders {
			fmt.Fprintf(w, "  … and %d more (--json lists them all)\n", len(off)-maxOffenders)
			break
		}
		fmt.Fprintf(w, "  %3.0f%%  %s (%s, used %d×)\n", f.Support, f.Title, f.Slug, f.Uses)
		if len(f.Unsupported) > 0 {
			fmt.Fprintf(w, "        not supported: %s\n", htmlcompat.Clients(f.Unsupported))
		}
		if len(f.Partial) > 0 {
			fmt.Fprintf(w, "        partly: %s\n", htmlcompat.Clients(f.Partial))
		}
	}
	return nil
}
