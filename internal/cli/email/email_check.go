package email

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"sandview/client/linkcheck"
	"sandview/internal/cli/cmdutil"
	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/htmlcompat"
)

// maxOffenders is how many features the text report lists.
const maxOffenders = 10

// CheckView is what email check prints: the HTML compatibility report
// (nil when the email has no HTML part) and, with --links, each link's
// check.
type CheckView struct {
	ID    string             `json:"id"`
	HTML  *htmlcompat.Report `json:"htmlCompatibility"`
	Links []linkcheck.Result `json:"links,omitempty"`
	// Deceptive are the links whose text names another host than they
	// lead to (linkcheck.Deceptions), always listed.
	Deceptive []linkcheck.Deception `json:"deceptiveLinks"`
	// Spam is the server's spam analysis (null: the server scores none).
	Spam *model.SpamAnalysis `json:"spamAnalysis"`
}

func newEmailCheckCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var asJSON, links, private bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "check ID",
		Short: "Check an email: which email clients lack the HTML and CSS features it uses",
		Long: `Check an email as QA does before sending it to the world.

HTML compatibility: the HTML and CSS features the HTML part uses that
common email clients do not support, from caniemail's data (embedded), with
a score: the share of the email clients (each client on each platform) that
render every feature used, a partly supporting client counting half.

Deceptive links: links whose text names another host than they lead to
(as "https://pay\u200bpal.com/login" over a link to another site), invisible
characters in the text removed.

Spam score: the score SpamAssassin gave the mail when it arrived and the
rules that fired, when the server runs with --spamd.

--links checks every link: its HTTP status after redirects (HEAD, then GET
when the server refuses HEAD), the redirect chain, 5 s a link, 4 at a time.
A link that cannot be reached says so; the check goes on. Loopback and
private addresses are not checked unless --private (the webhooks' rule).`,
		Example: "  sandview email check 3f1c…\n  sandview email check 3f1c… --links --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEmail(cmd, g, *inbox, args[0], func(e model.Email) error {
				v, err := Check(cmd.Context(), e, CheckOptions{Links: links, private: private, timeout: timeout})
				if err != nil {
					return err
				}
				if asJSON {
					return cmdutil.PrintJSON(cmd.OutOrStdout(), v)
				}
				return printCheck(cmd.OutOrStdout(), v)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (every feature used, every client affected)")
	cmd.Flags().BoolVar(&links, "links", false, "check every link's HTTP status")
	cmd.Flags().DurationVar(&timeout, "link-timeout", linkcheck.DefaultTimeout, "with --links: time a link may take, redirects included")
	cmd.Flags().BoolVar(&private, "private", false, "with --links: check loopback and private addresses too")
	return cmd
}

// CheckOptions are what email check checks besides what it always does.
type CheckOptions struct {
	Links   bool // check every link's HTTP status
	private bool // with links: loopback and private addresses too
	timeout time.Duration
}

// Check checks e as `email check` does: its HTML compatibility,
// deceptive links, spam score and, with o.Links, its links.
func Check(ctx context.Context, e model.Email, o CheckOptions) (CheckView, error) {
	v := CheckView{ID: e.ID, Spam: e.SpamAnalysis, Deceptive: linkcheck.Deceptions(e.HTML)}
	if v.Deceptive == nil {
		v.Deceptive = []linkcheck.Deception{}
	}
	if e.HTML != "" {
		data, err := htmlcompat.Default()
		if err != nil {
			return v, err
		}
		r := data.Check(e.HTML)
		v.HTML = &r
	}
	if o.Links {
		c := linkcheck.New(linkcheck.Options{AllowPrivate: o.private, Timeout: o.timeout})
		defer c.Close()
		v.Links = c.Check(ctx, e.Links, nil)
	}
	return v, nil
}

// printCheck writes the text report, section by section in the order
// listed: a new check is a row here.
func printCheck(w io.Writer, v CheckView) error {
	for _, section := range []func(io.Writer, CheckView) error{printCompat, printSpam, printDeceptive, printLinks} {
		if err := section(w, v); err != nil {
			return err
		}
	}
	return nil
}

// printCompat writes the HTML compatibility report.
func printCompat(w io.Writer, v CheckView) error {
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

// printLinks writes the link check, when there was one: a line per link,
// its redirects under it.
func printLinks(w io.Writer, v CheckView) error {
	results := v.Links
	if results == nil {
		return nil
	}
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Outcome]++
	}
	fmt.Fprintf(w, "\nLinks: %d: %d ok, %d broken, %d unreachable, %d not checked\n", len(results),
		counts[linkcheck.OK], counts[linkcheck.Broken], counts[linkcheck.Unreachable], counts[linkcheck.NotChecked]+counts[linkcheck.Cancelled])
	for _, r := range results {
		status := "   "
		if r.Status != 0 {
			status = fmt.Sprint(r.Status)
		}
		note := ""
		switch {
		case r.Private:
			note = "  " + r.Error + " (use --private)"
		case r.Error != "":
			note = "  " + r.Error
		case r.Method == "GET":
			note = "  (GET: HEAD refused)"
		}
		fmt.Fprintf(w, "  %-11s %s  %s%s\n", r.Outcome, status, termtext.SanitizeLine(r.URL), termtext.SanitizeLine(note))
		for i, h := range r.Redirects {
			next := r.FinalURL
			if i+1 < len(r.Redirects) {
				next = r.Redirects[i+1].URL
			}
			fmt.Fprintf(w, "                   %d → %s\n", h.Status, termtext.SanitizeLine(next))
		}
	}
	if len(results) == 0 {
		_, err := fmt.Fprintln(w, "  no links")
		return err
	}
	return nil
}

// printSpam writes the spam score and the rules that fired.
func printSpam(w io.Writer, v CheckView) error {
	a := v.Spam
	_, err := fmt.Fprintf(w, "\nSpam score: %s\n", termtext.SanitizeLine(model.SpamSummary(a)))
	if a == nil {
		return err
	}
	for _, r := range a.Rules {
		fmt.Fprintf(w, "  %5.1f  %-24s %s\n", r.Score, termtext.SanitizeLine(r.Name), termtext.SanitizeLine(r.Description))
	}
	return err
}

// printDeceptive writes the links whose text names another host.
func printDeceptive(w io.Writer, v CheckView) error {
	ds := v.Deceptive
	if len(ds) == 0 {
		_, err := fmt.Fprintln(w, "\nDeceptive links: none")
		return err
	}
	_, err := fmt.Fprintf(w, "\nDeceptive links: %d\n", len(ds))
	for _, d := range ds {
		fmt.Fprintf(w, "  %s: %s\n", d.Warning(), termtext.SanitizeLine(d.Link))
	}
	return err
}
