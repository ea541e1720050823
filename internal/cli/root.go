// Package cli is sandview's command line (cobra): the root command runs
// the TUI, and the subcommands manage inboxes, emails, webhooks and the
// config, wait for mail, send mail and run the embedded server. Run is
// what main calls.
package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"sandview/client"

	"github.com/spf13/cobra"
)

// Exit codes of the CLI (listed in the root command's help).
const (
	exitOK      = 0
	exitFailure = 1
	// exitUsage: a bad invocation, or --local without a running local
	// server (or with its home held by another sandview).
	exitUsage   = 2
	exitTimeout = 3
	// exitKeyRefused: the server refused the API key.
	exitKeyRefused = 4
)

// exitCodesHelp documents the exit codes.
const exitCodesHelp = `Exit codes: 0 success; 1 failure; 2 bad usage, or --local without a
running local server; 3 wait timed out; 4 the server refused the API key.`

// errKeyRefused is a server's refusal of the API key (a 401, or check-key
// answering false).
var errKeyRefused = errors.New("the server refused the API key")

// Run runs the command line of os.Args and returns the process's exit
// code; errors go to stderr as one line.
func Run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	return execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// keyRefused reports an error that is the server refusing the API key.
func keyRefused(err error) bool {
	var unauthorized *client.UnauthorizedError
	return errors.As(err, &unauthorized) || errors.Is(err, errKeyRefused)
}

// keyRefusedMessage says the key was refused and how to fix it.
func keyRefusedMessage(g *globalOptions) string {
	if g.local {
		return "the local server refused the API key its state file gives: restart `sandview --local`"
	}
	return "the server refused the API key (401): pass the right one with --api-key, SERVICE_API_KEY or `sandview config --api-key KEY`"
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

func newRootCommand(g *globalOptions) *cobra.Command {
	l := &localOptions{}
	root := &cobra.Command{
		Use:   "sandview",
		Short: "Watch sandbox test mail live in the terminal",
		Long: `sandview shows the mail your app sends to a sandbox SMTP server, live, in the
terminal: decrypted, with its SPF, DKIM, DMARC and reverse-DNS results.

Run it against a deployed sandbox (--url/--api-key, SERVICE_URL/SERVICE_API_KEY,
or the config file), or start everything locally with --local: then every
mail sent to its SMTP port, to any address, shows up, and the other commands
reach that server from another terminal with --local too
(` + "`sandview email list --local`" + `).

` + exitCodesHelp,
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
