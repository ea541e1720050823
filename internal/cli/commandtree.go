package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"sandview/internal/cli/cmdutil"
)

// How the command tree treats bad invocations: every one is a usage error
// (exit 2) that says what was wrong and, for a mistyped command, what was
// probably meant.

// finishTree applies the rules to every command under root: a wrong
// number of arguments is a usage error, and a group (a command that only
// holds subcommands) given no subcommand, or an unknown one, is too.
func finishTree(root *cobra.Command) {
	root.InitDefaultCompletionCmd() // else cobra adds it when it runs, past these rules
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return unknownCommand(cmd, args[0])
		}
		return nil
	}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.SuggestionsMinimumDistance = 2
		for _, sub := range cmd.Commands() {
			switch {
			case sub.HasSubCommands() && sub.Run == nil && sub.RunE == nil:
				sub.Args = cobra.ArbitraryArgs
				sub.RunE = runGroup
				// Its usage shows "sandview email [command]" only: run
				// alone it is the error above. Its commands inherit the
				// template and show their usage line.
				sub.SetUsageTemplate(strings.Replace(sub.UsageTemplate(), "Usage:{{if .Runnable}}", "Usage:{{if and .Runnable (not .HasAvailableSubCommands)}}", 1))
			case sub.Args != nil:
				sub.Args = usageArgs(sub.Args)
			}
			walk(sub)
		}
	}
	walk(root)
}

// usageArgs turns the errors of an argument check into usage errors that
// show the command's usage line.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return cmdutil.UsageError{Msg: fmt.Sprintf("%s: %v (usage: %s)", cmd.CommandPath(), err, cmd.UseLine())}
		}
		return nil
	}
}

// runGroup is the run of a group: it needs one of its subcommands.
func runGroup(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return cmdutil.UsageError{Msg: fmt.Sprintf("%s needs a command: %s (see `%s --help`)", cmd.CommandPath(), strings.Join(names, ", "), cmd.CommandPath())}
}

// unknownCommand is the usage error of a command name cmd does not have,
// with the names it probably meant.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if suggestions := cmd.SuggestionsFor(name); len(suggestions) > 0 {
		msg += "; did you mean " + strings.Join(quoteAll(suggestions), " or ") + "?"
	}
	return cmdutil.UsageError{Msg: msg + fmt.Sprintf(" (see `%s --help`)", cmd.CommandPath())}
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// inapplicable hides inherited flags that mean nothing to cmd from its
// help; with refuse, they are an error on its command line too (without
// it they are ignored, so that scripts passing every command the same
// server flags keep working).
func inapplicable(cmd *cobra.Command, refuse bool, names ...string) {
	help := cmd.HelpFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		flags := c.Root().PersistentFlags()
		for _, name := range names {
			if f := flags.Lookup(name); f != nil && !f.Hidden {
				f.Hidden = true
				defer func() { f.Hidden = false }()
			}
		}
		help(c, args)
	})
	if !refuse {
		return
	}
	run := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		for _, name := range names {
			if c.Flags().Changed(name) {
				return cmdutil.UsageError{Msg: fmt.Sprintf("--%s is for the other commands: %s does not use it", name, c.CommandPath())}
			}
		}
		if run != nil {
			return run(c, args)
		}
		return nil
	}
}
