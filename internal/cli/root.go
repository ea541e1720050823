// Package cli is sandview's command line (cobra): the root command runs
// the TUI, and the subcommands manage inboxes, emails, webhooks and the
// config, wait for mail, send mail and run the embedded server. Run is
// what main calls.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"sandview/client"

	"github.com/spf13/cobra"
)

// Exit codes of the CLI.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitTimeout = 3
)

// Run runs the command line of os.Args and returns the process's exit
// code; errors go to stderr as one line.
func Run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	root := newRootCommand()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(os.Stderr, "sandview: "+oneLine(err.Error()+hint(err)))
	var exit *exitError
	if errors.As(err, &exit) {
		return exit.code
	}
	if isUsageError(err) {
		return exitUsage
	}
	return exitFailure
}

// hint adds what to do about an error in the CLI's words.
func hint(err error) string {
	var unauthorized *client.UnauthorizedError
	if errors.As(err, &unauthorized) {
		return "; pass another with --api-key, SERVICE_API_KEY or `sandview config --api-key KEY`"
	}
	return ""
}

// exitError carries a specific exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks a bad invocation.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func isUsageError(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func newRootCommand() *cobra.Command {
	g := &globalOptions{}
	l := &localOptions{}
	root := &cobra.Command{
		Use:   "sandview",
		Short: "Watch sandbox test mail live in the terminal",
		Long: `sandview shows the mail your app sends to a sandbox SMTP server, live, in the
terminal: decrypted, with its SPF, DKIM, DMARC and reverse-DNS results.

Run it against a deployed sandbox (--url/--api-key, SERVICE_URL/SERVICE_API_KEY,
or the config file), or start everything locally with --local.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTUI(cmd.Context(), g, l)
		},
	}
	g.register(root)
	l.register(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	root.AddCommand(
		newInboxCommand(g),
		newEmailCommand(g),
		newConfigCommand(g),
		newServeCommand(g),
		newSendCommand(g),
		newWaitCommand(g),
		newWebhookCommand(g),
	)
	return root
}
