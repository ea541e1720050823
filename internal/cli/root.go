// Package cli is sandview's command line (cobra): the root command runs
// the TUI, and the subcommands manage inboxes, emails, webhooks and the
// config, wait for mail, send mail and run the embedded server. Run is
// what main calls. It is the only reader of the environment: the command
// families (email, inbox, webhook, mcp) are packages of their own that
// get what they need through cmdutil.Factory.
package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"sandview/internal/cli/cmdutil"
	"sandview/internal/cli/email"
	"sandview/internal/cli/inbox"
	"sandview/internal/cli/mcp"
	"sandview/internal/cli/webhook"

	"github.com/spf13/cobra"
)

// The exit codes are cmdutil's, which the command families share; these
// are the root's names for them.
const (
	exitOK         = cmdutil.ExitOK
	exitFailure    = cmdutil.ExitFailure
	exitUsage      = cmdutil.ExitUsage
	exitTimeout    = cmdutil.ExitTimeout
	exitKeyRefused = cmdutil.ExitKeyRefused
)

// exitCodesHelp documents the exit codes.
const exitCodesHelp = `Exit codes: 0 success; 1 failure (also: the server cannot be reached);
2 bad usage, or --local without a running local server; 3 wait timed out
(the server answered, nothing matched); 4 the server refused the API key;
130 interrupted (Ctrl-C; 143 on SIGTERM).`

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

// keyRefusedMessage says the key was refused and how to fix it.
func keyRefusedMessage(g *globalOptions) string {
	if g.local {
		return "the local server refused the API key its state file gives: restart `sandview --local`"
	}
	return "the server refused the API key (401): pass the right one with --api-key, SERVICE_API_KEY or `sandview config --api-key KEY`"
}

func newRootCommand(g *globalOptions) *cobra.Command {
	l := &localOptions{}
	f := g.factory()
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.UsageError{Msg: err.Error()} })
	serve, send, config := newServeCommand(g), newSendCommand(g), newConfigCommand(g)
	inapplicable(serve, true, "url", "local")
	inapplicable(send, false, "url", "api-key")
	inapplicable(config, true, "local")
	root.AddCommand(
		inbox.NewCommand(f),
		email.NewCommand(f),
		config,
		serve,
		send,
		newSendmailCommand(g),
		email.NewWaitCommand(f),
		mcp.NewCommand(f),
		webhook.NewCommand(f),
		newVersionCommand(),
	)
	if listen, _, err := root.Find([]string{"webhook", "listen"}); err == nil {
		inapplicable(listen, false, "url", "api-key", "local", "home")
	}
	finishTree(root)
	return root
}
