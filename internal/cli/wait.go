package cli

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/spf13/cobra"

	"sandview/client"
	"sandview/model"
)

func newWaitCommand(g *globalOptions) *cobra.Command {
	var (
		inbox, subject, from string
		count                int
		timeout              time.Duration
		asJSON               bool
	)
	cmd := &cobra.Command{
		Use:   "wait",
		Short: "Wait until matching mail arrives, print it and exit 0 (exit 3 on timeout)",
		Example: `  sandview wait --subject 'Reset your password' --timeout 60s --json
  sandview wait --inbox qa@sandbox.test --from '@example\.org$' --count 3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if count < 1 {
				return usageError{"--count must be at least 1"}
			}
			if timeout < 0 {
				return usageError{"--timeout must not be negative"}
			}
			opts := client.WaitOptions{Timeout: timeout}
			if timeout == 0 {
				opts.Timeout = client.NoWait
			}
			for _, m := range []struct {
				flag, expr string
				into       *client.Matcher
			}{{"--subject", subject, &opts.Subject}, {"--from", from, &opts.From}} {
				if m.expr == "" {
					continue
				}
				re, err := regexp.Compile(m.expr)
				if err != nil {
					return usageError{fmt.Sprintf("%s %q is not a regular expression: %v", m.flag, m.expr, err)}
				}
				*m.into = client.Regexp(re)
			}
			return withInbox(cmd, g, inbox, func(in *client.Inbox) error {
				emails, err := in.WaitForEmailCount(cmd.Context(), count, opts)
				var timeoutErr *client.TimeoutError
				if errors.As(err, &timeoutErr) {
					if timeout == 0 {
						return &exitError{code: exitTimeout, err: fmt.Errorf("timed out: %s holds fewer than %d matching email(s)", in.Address(), count)}
					}
					return &exitError{code: exitTimeout, err: fmt.Errorf("timed out: fewer than %d matching email(s) arrived in %s within %s", count, in.Address(), timeout)}
				}
				if err != nil {
					return err
				}
				return printWaited(cmd, asJSON, emails)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&inbox, "inbox", "", "inbox address (may be left out when one inbox is known)")
	f.StringVar(&subject, "subject", "", "regular expression the subject must match")
	f.StringVar(&from, "from", "", "regular expression the sender must match")
	f.IntVar(&count, "count", 1, "how many matching emails to wait for")
	f.DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait (0 = check once)")
	f.BoolVar(&asJSON, "json", false, "print JSON objects")
	return cmd
}

func printWaited(cmd *cobra.Command, asJSON bool, emails []model.Email) error {
	w := cmd.OutOrStdout()
	if asJSON {
		if len(emails) == 1 {
			return printJSON(w, emailViewOf(emails[0]))
		}
		views := make([]emailView, len(emails))
		for i, e := range emails {
			views[i] = emailViewOf(e)
		}
		return printJSON(w, views)
	}
	for i, e := range emails {
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		printEmail(w, e)
	}
	return nil
}
