package email

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/internal/cli/cmdutil"
	"sandview/model"
)

// WaitOptions are the flags of `sandview wait`.
type WaitOptions struct {
	Inbox, Subject, From string
	To                   string
	Since                string
	OnlyNew              bool
	Count                int
	Timeout              time.Duration
	asJSON               bool
	extract              string // --extract: see wait_extract.go
}

func NewWaitCommand(g *cmdutil.Factory) *cobra.Command {
	var o WaitOptions
	cmd := &cobra.Command{
		Use:   "wait",
		Short: "Wait until matching mail arrives, print it and exit 0 (exit 3 on timeout)",
		Long: `Wait until the inbox holds --count emails that match every filter given,
print them (oldest first) and exit 0; exit 3 when the timeout passes first.

Mail already in the inbox counts unless --new (only mail that arrives after
the command starts) or --since (only mail received since a duration ago or
a timestamp, by the server's receivedAt) says otherwise. --json prints a
JSON array whatever --count is. A line on stderr says when it starts
waiting: mail sent from then on counts as new.`,
		Example: `  sandview wait --subject 'Reset your password' --new --timeout 60s --json
  sandview wait --inbox qa@sandbox.test --from '@example\.org$' --count 3 --since 10m
  sandview wait --local --subject Welcome --since 2026-11-21T10:00:00Z
  sandview wait --inbox qa@sandbox.test --to signup-17@example.org --new --json
  sandview wait --inbox qa@sandbox.test --to signup-17@example.org --extract code`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := o.ClientOptions(time.Now())
			if err != nil {
				return err
			}
			if err := reachable(cmd.Context(), g, o.Timeout); err != nil {
				return err
			}
			return withInbox(cmd, g, o.Inbox, func(in *client.Inbox) error {
				return runWait(cmd, in, o, opts)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Inbox, "inbox", "", "inbox address (may be left out when one inbox is known)")
	f.StringVar(&o.Subject, "subject", "", "regular expression the subject must match")
	f.StringVar(&o.From, "from", "", "regular expression the sender must match")
	f.StringVar(&o.To, "to", "", "only mail sent to this address (a catch-all holds mail for many)")
	f.StringVar(&o.Since, "since", "", "only mail received since: a duration ago (10m) or a timestamp (RFC 3339)")
	f.BoolVar(&o.OnlyNew, "new", false, "only mail that arrives after the command starts")
	f.IntVar(&o.Count, "count", 1, "how many matching emails to wait for")
	f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "how long to wait (0 = check once)")
	f.BoolVar(&o.asJSON, "json", false, "print a JSON array of the emails")
	o.addExtractFlag(f)
	return cmd
}

// ClientOptions checks the flags and turns them into the client's options
// (--new is applied by runWait, which knows the inbox).
func (o WaitOptions) ClientOptions(now time.Time) (client.WaitOptions, error) {
	if o.Count < 1 {
		return client.WaitOptions{}, cmdutil.UsageError{Msg: "--count must be at least 1"}
	}
	if o.Timeout < 0 {
		return client.WaitOptions{}, cmdutil.UsageError{Msg: "--timeout must not be negative"}
	}
	if _, err := o.extractor(); err != nil {
		return client.WaitOptions{}, err
	}
	opts := client.WaitOptions{Timeout: o.Timeout}
	if o.Timeout == 0 {
		opts.Timeout = client.NoWait
	}
	for _, m := range []struct {
		flag, expr string
		into       *client.Matcher
	}{{"--subject", o.Subject, &opts.Subject}, {"--from", o.From, &opts.From}} {
		if m.expr == "" {
			continue
		}
		re, err := regexp.Compile(m.expr)
		if err != nil {
			return opts, cmdutil.UsageError{Msg: fmt.Sprintf("%s %q is not a regular expression: %v", m.flag, m.expr, err)}
		}
		*m.into = client.Regexp(re)
	}
	if o.Since != "" {
		since, err := parseSince(o.Since, now)
		if err != nil {
			return opts, err
		}
		opts.Predicate = func(e model.Email) bool { return !e.ReceivedAt.Before(since) }
	}
	opts.To = strings.TrimSpace(o.To)
	return opts, nil
}

// reachable checks that the server answers before a wait starts, so that
// a server that cannot be reached is an error (exit 1) and not a timeout
// (exit 3, which says the server answered and nothing matched). The check
// takes at most the wait's timeout (10 s for --timeout 0).
func reachable(ctx context.Context, g *cmdutil.Factory, timeout time.Duration) error {
	url, apiKey, err := g.Target(ctx)
	if err != nil || url == "" || apiKey == "" {
		return err // connecting reports what is missing
	}
	c, err := client.New(url, apiKey)
	if err != nil {
		return err
	}
	defer c.Close()
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	checkCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := c.CheckKey(checkCtx)
	var unauthorized *client.UnauthorizedError
	switch {
	case err == nil && !ok:
		return cmdutil.ErrKeyRefused
	case err == nil, errors.As(err, &unauthorized), ctx.Err() != nil:
		return err
	case checkCtx.Err() != nil:
		return fmt.Errorf("cannot reach %s: no answer within %s", url, timeout)
	}
	return fmt.Errorf("cannot reach %s: %w", url, err)
}

// parseSince reads --since: a duration before now, or an RFC 3339 time.
func parseSince(value string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(value); err == nil {
		if d < 0 {
			return time.Time{}, cmdutil.UsageError{Msg: fmt.Sprintf("--since %q: give a positive duration (how long ago)", value)}
		}
		return now.Add(-d), nil
	}
	if t, err := client.ParseTimestamp(value); err == nil {
		return t, nil
	}
	return time.Time{}, cmdutil.UsageError{Msg: fmt.Sprintf("--since %q is neither a duration (10m, 2h) nor a timestamp (2026-11-21T10:00:00Z)", value)}
}

// runWait waits in one inbox and prints what it found.
func runWait(cmd *cobra.Command, in *client.Inbox, o WaitOptions, opts client.WaitOptions) error {
	emails, err := WaitIn(cmd.Context(), in, o, opts, cmd.ErrOrStderr(), "sandview")
	var timeoutErr *client.TimeoutError
	if errors.As(err, &timeoutErr) {
		if o.asJSON {
			// A script reading --json gets an array even on a timeout: [] when
			// nothing matched.
			if err := printWaited(cmd, true, emails); err != nil {
				return err
			}
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitTimeout, Err: o.TimedOut(in)}
	}
	if err != nil {
		return err
	}
	return o.printResult(cmd, emails)
}

// WaitIn waits in one inbox as o says (with --new only mail that is not
// there when it starts counts) and returns what it found; on a timeout,
// what it found and a *client.TimeoutError. When it waits at all, a line
// on log, starting with who, says when mail that arrives counts.
func WaitIn(ctx context.Context, in *client.Inbox, o WaitOptions, opts client.WaitOptions, log io.Writer, who string) ([]model.Email, error) {
	if o.OnlyNew {
		present, err := emailIDs(ctx, in)
		if err != nil {
			return nil, err
		}
		matches := opts.Predicate
		opts.Predicate = func(e model.Email) bool { return !present[e.ID] && (matches == nil || matches(e)) }
	}
	if o.Timeout > 0 {
		// From here on, mail that arrives counts (--new).
		fmt.Fprintf(log, "%s: waiting up to %s for %d matching email(s) in %s\n", who, o.Timeout, o.Count, in.Address())
	}
	return in.WaitForEmailCount(ctx, o.Count, opts)
}

// TimedOut is the error of a wait in in that ended without all it waited for.
func (o WaitOptions) TimedOut(in *client.Inbox) error {
	if o.Timeout == 0 {
		return fmt.Errorf("timed out: %s holds fewer than %s", in.Address(), o.wanted())
	}
	return fmt.Errorf("timed out: fewer than %s arrived in %s within %s", o.wanted(), in.Address(), o.Timeout)
}

// emailIDs lists the ids of the emails an inbox holds now.
func emailIDs(ctx context.Context, in *client.Inbox) (map[string]bool, error) {
	ids := map[string]bool{}
	err := in.EachEmail(ctx, client.ListOptions{}, func(e model.Email, _ error) error {
		ids[e.ID] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the mail already in %s: %w", in.Address(), err)
	}
	return ids, nil
}

// printWaited prints the emails a wait found: a JSON array with --json
// (one shape whatever --count is), else each as `email show` does.
func printWaited(cmd *cobra.Command, asJSON bool, emails []model.Email) error {
	w := cmd.OutOrStdout()
	if asJSON {
		views := make([]shownEmail, len(emails))
		for i, e := range emails {
			views[i] = shownEmailOf(e)
		}
		return cmdutil.PrintJSON(w, views)
	}
	for i, e := range emails {
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		printEmail(w, e)
	}
	return nil
}
