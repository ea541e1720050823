// Package cli is sandview's command line (cobra): the root command runs
// the TUI, and the subcommands manage inboxes, emails, webhooks and the
// config, wait for mail, send mail and run the embedded server. Run is
// what main calls.
package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
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
const exitCodesHelp = `Exit codes: 0 success; 1 failure (also: the server cannot be reached);
2 bad usage, or --local without a running local server; 3 wait timed out
(the server answered, nothing matched); 4 the server refused the API key;
130 interrupted (Ctrl-C; 143 on SIGTERM).`

// errKeyRefused is a server's refusal of the API key (a 401, or check-key
// answering false).
var errKeyRefused = errors.New("the server refused the API key")

// Run runs a process's command line (argv, its program's name first) in
// its environment (KEY=VALUE lines) and standard streams, and returns the
// process's exit code; errors go to stderr as one line. SIGINT, SIGTERM and SIGHUP (the
// terminal closed: a window, an SSH connection) cancel the
// command's context: a command that then ends with an error exits
// 128+signal (130 for Ctrl-C) without a message; one that stops cleanly
// (a server shutting down) exits 0. A second signal is not caught.
func Run(argv, environ []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var received atomic.Int32
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	go func() {
		select {
		case sig := <-signals:
			signal.Stop(signals)
			if s, ok := sig.(syscall.Signal); ok {
				received.Store(int32(s))
			}
			cancel()
		case <-ctx.Done():
		}
	}()

	return execute(ctx, processEnvironment(environ), commandLine(argv), stdin, stdout, stderr, func() int { return int(received.Load()) }, nil)
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
		Version:       readBuildVersion().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTUI(cmd.Context(), g, l)
		},
	}
	g.register(root)
	l.register(root)
	root.SetVersionTemplate("{{.Version}}")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	serve, send, config := newServeCommand(g), newSendCommand(g), newConfigCommand(g)
	inapplicable(serve, true, "url", "local")
	inapplicable(send, false, "url", "api-key")
	inapplicable(config, true, "local")
	root.AddCommand(
		newInboxCommand(g),
		newEmailCommand(g),
		config,
		serve,
		send,
		newSendmailCommand(g),
		newWaitCommand(g),
		newMCPCommand(g),
		newWebhookCommand(g),
		newVersionCommand(),
	)
	if listen, _, err := root.Find([]string{"webhook", "listen"}); err == nil {
		inapplicable(listen, false, "url", "api-key", "local", "home")
	}
	finishTree(root)
	return root
}
