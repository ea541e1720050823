package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
)

// execute runs one command line (args without the program's name) with
// the given standard streams in env and returns its exit status: Run runs
// it on the process's own, the SSH transport on a session's. signaled, when not
// nil, names the signal that cancelled ctx (0: none): a command it ended
// with an error exits 128+signal without a message. profile, when not
// nil, readies the command tree and its global options before the line
// runs (the SSH transport's: see sshProfile), or refuses the line.
func execute(ctx context.Context, env environment, args []string, stdin io.Reader, stdout, stderr io.Writer, signaled func() int,
	profile func(root *cobra.Command, g *globalOptions) error) int {
	g := &globalOptions{env: env}
	root := newRootCommand(g)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	var err error
	if profile != nil {
		err = profile(root, g)
	}
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return exitOK
	}
	if signaled != nil {
		if sig := signaled(); sig != 0 {
			return 128 + sig
		}
	}
	if cmdutil.KeyRefused(err) {
		fmt.Fprintln(stderr, "sandview: "+keyRefusedMessage(g))
		return exitKeyRefused
	}
	fmt.Fprintln(stderr, "sandview: "+cmdutil.OneLine(err.Error()))
	var exit *cmdutil.ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	if cmdutil.IsUsageError(err) {
		return exitUsage
	}
	return exitFailure
}
