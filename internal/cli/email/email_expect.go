package email

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"sandview/client"
	"sandview/client/linkcheck"
	"sandview/client/securefile"
	"sandview/internal/cli/cmdutil"
	"sandview/internal/expect"
	"sandview/model"
	"sandview/model/search"
	"sandview/model/termtext"
)

// expectFlags are the flags of `email expect`.
type expectFlags struct {
	target                   mailTarget
	subject, from, to        string
	verdict                  string
	minCompat, maxSpam       float64
	links, private           bool
	linkTimeout              time.Duration
	skip                     []string
	golden, junit            string
	update, asJSON           bool
	minCompatSet, maxSpamSet bool
	goldenContent            string // the golden file's content, read by readGolden
}

func newEmailExpectCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var f expectFlags
	cmd := &cobra.Command{
		Use:   "expect [ID | --wait QUERY]",
		Short: "Assert what matters in a mail (auth, HTML, links, spam, template): exit 1 when one fails",
		Long: `Run assertions on one mail and print each with what was found; exit 0 when
all pass, 1 when one fails, 2 on bad input, 3 when --wait times out.

With no flag the standard checks run, none over the network: verdict (the
authentication verdict is not "fail"), html-size (the HTML under Gmail's
clipping size, 102 KB), text-part, list-unsubscribe, image-alt (every
<img> has an alt attribute; alt="" marks decoration), remote-fonts-scripts
(no script, no remote font or stylesheet) and deceptive-links. --skip NAME
leaves one out. Flags add or tighten assertions: --subject, --from and --to
(exact, or ~REGEX), --verdict pass, --min-compat N (the HTML compatibility
score of email check), --max-spam N (a mail the server did not score
fails: "not scored"), --links (every link answers 2xx or 3xx after
redirects; loopback and private addresses only with --private) and
--golden FILE (the mail's snapshot, see email snapshot, is FILE's: a
unified diff otherwise; --update rewrites FILE, atomically).

--wait QUERY waits (up to --timeout) for the first mail matching a search
query (the language of email list --search) instead of taking an ID.
Output: a table, --json, and --junit FILE (JUnit XML, one test case per
assertion; "-" writes it to standard output and the table to stderr).`,
		Example: `  sandview email expect 3f1c…
  sandview email expect --wait 'to:new-user@example.org subject:Confirm' --subject '~^Confirm' --skip list-unsubscribe --junit mail.xml
  sandview email expect 3f1c… --verdict pass --min-compat 80 --max-spam 3 --links
  sandview email expect 3f1c… --golden welcome.golden [--update]`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.minCompatSet, f.maxSpamSet = cmd.Flags().Changed("min-compat"), cmd.Flags().Changed("max-spam")
			opts, err := f.options()
			if err != nil {
				return err
			}
			if err := f.readGolden(cmd.InOrStdin()); err != nil {
				return err
			}
			return f.target.fetch(cmd, g, *inbox, args, func(e model.Email, inbox string) error {
				return f.run(cmd, e, inbox, opts)
			})
		},
	}
	fl := cmd.Flags()
	f.target.register(fl)
	fl.StringVar(&f.subject, "subject", "", "the subject is this (or matches ~REGEX)")
	fl.StringVar(&f.from, "from", "", "the sender is this address or name <address> (or matches ~REGEX)")
	fl.StringVar(&f.to, "to", "", "a recipient is this address (or matches ~REGEX)")
	fl.StringVar(&f.verdict, "verdict", expect.VerdictNotFail, "the authentication verdict: not-fail, or pass")
	fl.Float64Var(&f.minCompat, "min-compat", 0, "the HTML compatibility score is at least N (0-100)")
	fl.Float64Var(&f.maxSpam, "max-spam", 0, "the spam score is at most N (fails when the server does not score)")
	fl.BoolVar(&f.links, "links", false, "every link answers 2xx or 3xx (the network)")
	fl.BoolVar(&f.private, "private", false, "with --links: check loopback and private addresses too")
	fl.DurationVar(&f.linkTimeout, "link-timeout", linkcheck.DefaultTimeout, "with --links: time a link may take, redirects included")
	fl.StringSliceVar(&f.skip, "skip", nil, "standard assertions not to run: "+strings.Join(expect.Standard(), ", "))
	fl.StringVar(&f.golden, "golden", "", "the mail's snapshot is this file's (\"-\": standard input)")
	fl.BoolVar(&f.update, "update", false, "with --golden: write the mail's snapshot to the file instead")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	fl.StringVar(&f.junit, "junit", "", "write JUnit XML to FILE (\"-\": standard output)")
	return cmd
}

// options checks the flags and turns them into the engine's options.
func (f *expectFlags) options() (expect.Options, error) {
	o := expect.Options{Verdict: f.verdict, Links: f.links, AllowPrivate: f.private, LinkTimeout: f.linkTimeout, Skip: f.skip}
	for _, m := range []struct {
		flag, value string
		into        **expect.Match
	}{{"--subject", f.subject, &o.Subject}, {"--from", f.from, &o.From}, {"--to", f.to, &o.To}} {
		if m.value == "" {
			continue
		}
		match, err := expect.ParseMatch(m.flag, m.value)
		if err != nil {
			return o, cmdutil.UsageError{Msg: err.Error()}
		}
		*m.into = match
	}
	if f.minCompatSet {
		o.MinCompat = &f.minCompat
	}
	if f.maxSpamSet {
		o.MaxSpam = &f.maxSpam
	}
	switch {
	case f.update && f.golden == "":
		return o, cmdutil.UsageError{Msg: "--update rewrites the file of --golden FILE: give it"}
	case f.update && f.golden == "-":
		return o, cmdutil.UsageError{Msg: "--update cannot rewrite standard input: give --golden FILE"}
	case f.private && !f.links:
		return o, cmdutil.UsageError{Msg: "--private goes with --links"}
	case f.asJSON && f.junit == "-":
		return o, cmdutil.UsageError{Msg: "--json and --junit - both write to standard output: give --junit FILE"}
	}
	if err := o.Validate(); err != nil {
		return o, cmdutil.UsageError{Msg: err.Error()}
	}
	return o, nil
}

// readGolden reads the golden file before the mail is fetched, so that a
// missing one is bad input (exit 2); with --update it may be missing.
func (f *expectFlags) readGolden(stdin io.Reader) error {
	var data []byte
	var err error
	switch f.golden {
	case "":
		return nil
	case "-":
		data, err = io.ReadAll(stdin)
	default:
		data, err = os.ReadFile(f.golden)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && f.update:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return cmdutil.UsageError{Msg: fmt.Sprintf("--golden %s: no such file (write it with `sandview email snapshot ID > %s`, or pass --update)", f.golden, f.golden)}
	case err != nil:
		return cmdutil.UsageError{Msg: fmt.Sprintf("--golden %s: %v", f.golden, err)}
	}
	f.goldenContent = string(data)
	return nil
}

// run asserts, prints the report and says whether all passed; inbox is
// the address e was read from (see expect.Snapshot).
func (f *expectFlags) run(cmd *cobra.Command, e model.Email, inbox string, opts expect.Options) error {
	rep := expect.Check(cmd.Context(), e, opts)
	if f.golden != "" {
		snap := expect.Snapshot(e, inbox)
		if f.update {
			if err := securefile.Write(f.golden, []byte(snap)); err != nil {
				return err
			}
			rep.Add(expect.Result{Name: expect.GoldenName, Passed: true, Expected: "the snapshot in " + f.golden, Found: "written (--update)"})
		} else {
			label := f.golden
			if label == "-" {
				label = "standard input"
			}
			rep.Add(expect.Golden(label, f.goldenContent, snap))
		}
	}
	out, table := cmd.OutOrStdout(), cmd.OutOrStdout()
	switch f.junit {
	case "":
	case "-":
		table = cmd.ErrOrStderr()
		if err := rep.WriteJUnit(out); err != nil {
			return err
		}
	default:
		var b strings.Builder
		if err := rep.WriteJUnit(&b); err != nil {
			return err
		}
		if err := securefile.Write(f.junit, []byte(b.String())); err != nil {
			return err
		}
	}
	var err error
	if f.asJSON {
		err = cmdutil.PrintJSON(out, rep)
	} else {
		err = printExpect(table, rep)
	}
	if err != nil {
		return err
	}
	if !rep.Passed {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%d of %d assertions failed on email %s", rep.Failed, len(rep.Results), e.ID)}
	}
	return nil
}

// printExpect writes the report as a table, then each failure's detail
// (a golden file's diff).
func printExpect(w io.Writer, rep expect.Report) error {
	fmt.Fprintf(w, "Email %s %q: %d of %d assertions passed\n", termtext.SanitizeLine(rep.ID), termtext.SanitizeLine(rep.Subject),
		len(rep.Results)-rep.Failed, len(rep.Results))
	var t cmdutil.Table
	for _, r := range rep.Results {
		if r.Passed {
			t.Add("PASS", r.Name, r.Found)
		} else {
			t.Add("FAIL", r.Name, r.Message())
		}
	}
	if err := t.Write(w); err != nil {
		return err
	}
	for _, r := range rep.Results {
		if !r.Passed && r.Detail != "" {
			fmt.Fprintf(w, "\n%s:\n%s", r.Name, termtext.Sanitize(r.Detail))
		}
	}
	return nil
}

// mailTarget is the mail a command works on: an ID, or the first mail
// matching --wait QUERY (within --timeout).
type mailTarget struct {
	query   string
	timeout time.Duration
}

func (m *mailTarget) register(f *pflag.FlagSet) {
	f.StringVar(&m.query, "wait", "", "instead of an ID: wait for the first mail matching this search query (see email list --search)")
	f.DurationVar(&m.timeout, "timeout", 30*time.Second, "with --wait: how long to wait (exit 3 after)")
}

// fetch calls fn with the mail of args[0] or of --wait.
func (m *mailTarget) fetch(cmd *cobra.Command, g *cmdutil.Factory, address string, args []string, fn func(e model.Email, inbox string) error) error {
	switch {
	case len(args) == 1 && m.query != "":
		return cmdutil.UsageError{Msg: "give an ID or --wait QUERY, not both"}
	case len(args) == 1:
		return withInbox(cmd, g, address, func(in *client.Inbox) error {
			e, err := readEmail(cmd.Context(), in, args[0])
			if err != nil {
				return err
			}
			return fn(e, in.Address())
		})
	case m.query == "":
		return cmdutil.UsageError{Msg: "give an email's ID, or --wait QUERY"}
	case m.timeout <= 0:
		return cmdutil.UsageError{Msg: "--timeout must be positive"}
	}
	q, err := search.Parse(m.query, time.Now())
	if err != nil {
		return cmdutil.UsageError{Msg: fmt.Sprintf("--wait %q: %v", m.query, err)}
	}
	if err := reachable(cmd.Context(), g, m.timeout); err != nil {
		return err
	}
	return withInbox(cmd, g, address, func(in *client.Inbox) error {
		fmt.Fprintf(cmd.ErrOrStderr(), "sandview: waiting up to %s for an email matching %q in %s\n", m.timeout, m.query, in.Address())
		e, err := in.WaitForEmail(cmd.Context(), client.WaitOptions{Predicate: q.Match, Timeout: m.timeout})
		var timeoutErr *client.TimeoutError
		if errors.As(err, &timeoutErr) {
			return &cmdutil.ExitError{Code: cmdutil.ExitTimeout, Err: fmt.Errorf("timed out: no email matching %q arrived in %s within %s", m.query, in.Address(), m.timeout)}
		}
		if err != nil {
			return err
		}
		if e.Problem != "" {
			return fmt.Errorf("email %s cannot be read: %s", termtext.SanitizeLine(e.ID), termtext.SanitizeLine(e.Problem))
		}
		return fn(e, in.Address())
	})
}

func newEmailSnapshotCommand(g *cmdutil.Factory, inbox *string) *cobra.Command {
	var target mailTarget
	cmd := &cobra.Command{
		Use:   "snapshot [ID | --wait QUERY]",
		Short: "Print a mail's stable parts, volatile values as {placeholders}, for a golden file",
		Long: `Print the stable parts of a mail for a golden file (email expect --golden):
the headers a template sets (From, Reply-To, To, Cc, Subject,
List-Unsubscribe), the attachments' names, the text part, the HTML part as
rendered text and the link targets. Values that change from one mail to
the next are replaced by named placeholders: the inbox's address by
{inbox} (a test run's inbox is a new one), a link's query values by
{NAME} (?token={token}), one-time codes by {code}, dates and times by
{date} and {time}, UUIDs by {uuid}, and runs of 6 or more letters and
digits that include a digit by {id}.`,
		Example: "  sandview email snapshot 3f1c… > welcome.golden\n  sandview email expect 3f1c… --golden welcome.golden",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return target.fetch(cmd, g, *inbox, args, func(e model.Email, inbox string) error {
				_, err := io.WriteString(cmd.OutOrStdout(), expect.Snapshot(e, inbox))
				return err
			})
		},
	}
	target.register(cmd.Flags())
	return cmd
}
