package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"sandview/internal/cli/cmdutil"
)

// The SSH profile: what an SSH user's command line may run. It is an
// allowlist down to each command's flags: a command or flag that is not
// listed here is refused, so one added later runs over SSH only once it is
// classified (TestSSHProfileClassifiesEveryCommandAndFlag fails until
// then). Nothing allowed takes a path, an address or a port on the box:
// output goes to the session's standard output, input comes from its
// standard input, downloads go through SFTP.

// sshAllowed lists, by command path (without "sandview "; "" is the root),
// the commands an SSH user may run and the flags each may take besides
// --help. A group (email, inbox, webhook) is listed for the error it gives
// without a subcommand.
var sshAllowed = map[string][]string{
	"":                  {"version"},
	"help":              nil,
	"version":           {"json"},
	"email":             {"inbox"},
	"email list":        {"inbox", "json", "search"},
	"email show":        {"inbox", "html", "json"},
	"email raw":         {"inbox"},
	"email delete":      {"inbox"},
	"email attachments": {"inbox", "json"},
	"email links":       {"inbox", "json"},
	"email check":       {"inbox", "json", "links", "link-timeout"},
	"email expect":      {"inbox", "wait", "timeout", "subject", "from", "to", "verdict", "min-compat", "max-spam", "links", "link-timeout", "skip", "golden", "json", "junit"},
	"email snapshot":    {"inbox", "wait", "timeout"},
	"email render":      {"inbox", "output", "width", "dark", "full", "height", "allow-remote", "format"},
	"inbox":             nil,
	"inbox attach":      {"json"},
	"inbox create":      {"address", "encrypted", "json", "no-auth", "plain", "ttl"},
	"inbox delete":      {"all"},
	"inbox export":      nil,
	"inbox forget":      nil,
	"inbox import":      {"json"},
	"inbox chaos":       {"latency", "drop", "reset", "error", "permanent", "greylist", "blackhole", "for", "off", "json"},
	"inbox list":        {"json"},
	"mcp":               nil,
	"wait":              {"count", "extract", "from", "inbox", "json", "new", "since", "subject", "timeout", "to"},
	"webhook":           {"inbox"},
	"webhook create": {"inbox", "case-sensitive", "content-type", "custom-body", "description", "endpoint",
		"event", "filter", "filter-mode", "json", "require-auth", "template"},
	"webhook delete":    {"inbox"},
	"webhook list":      {"inbox", "json"},
	"webhook metrics":   {"inbox", "json"},
	"webhook rotate":    {"inbox", "json"},
	"webhook show":      {"inbox", "json"},
	"webhook templates": {"inbox", "json"},
	"webhook test":      {"inbox", "json"},
	"webhook update": {"inbox", "case-sensitive", "content-type", "custom-body", "description", "disable", "enable",
		"endpoint", "event", "filter", "filter-mode", "json", "no-filter", "no-template", "require-auth", "template"},
}

// sshMaxArgs bounds the arguments of allowed commands whose further
// arguments would be paths on the box, with what to do instead.
var sshMaxArgs = map[string]struct {
	max     int
	instead string
}{
	"inbox export": {1, "over SSH the export goes to standard output: ssh {host} inbox export ADDRESS > inbox.json"},
}

// sshStdinOnly lists the allowed flags that take a file: over SSH they
// take only "-" (the session's standard input).
var sshStdinOnly = map[string]bool{"webhook create --custom-body": true, "webhook update --custom-body": true, "email expect --golden": true}

// sshStdoutOnly lists the allowed flags that name a file to write: over
// SSH they take only "-" (the session's standard output).
var sshStdoutOnly = map[string]bool{"email expect --junit": true, "email render --output": true}

// Messages of what to do instead; {scp} is the scp command's start
// (scp -P PORT HOST:), {host} the ssh destination.
const (
	insteadDownload = "over SSH nothing is written on the box: download with {scp}ADDRESS/ID/ATTACHMENT-NAME . (or sftp)"
	insteadServer   = "each SSH key acts as its own user of the box's server: the box sets it"
	insteadPrivate  = "over SSH links are never checked on private addresses (the box's own network)"
	insteadViewer   = "sandview's own flags are the box's: open the inbox viewer with ssh -t {host}"
)

// sshRefused lists the commands and flags an SSH user may not use, with
// what to do instead: a command by its path, a flag as "PATH --NAME", a
// flag of every command as "--NAME".
var sshRefused = map[string]string{
	"serve":                 "the box runs the server: run your own with `sandview serve` on your machine",
	"config":                "the box sets your server and key over SSH: there is nothing to configure",
	"send":                  "send test mail from your machine to the box's SMTP port (sandview send --smtp HOST:PORT)",
	"sendmail":              "send mail from your machine to the box's SMTP port (sandview sendmail --smtp HOST:PORT)",
	"completion":            "run `sandview completion` on your own machine",
	"completion bash":       "run `sandview completion bash` on your own machine",
	"completion fish":       "run `sandview completion fish` on your own machine",
	"completion powershell": "run `sandview completion powershell` on your own machine",
	"completion zsh":        "run `sandview completion zsh` on your own machine",
	"email open":            "over SSH nothing is opened on the box: see the HTML with `email show ID --html`, or download the mail with {scp}ADDRESS/ID.eml .",
	"webhook listen":        "it would listen on a port of the box: run `sandview webhook listen` on your own machine",

	"--url": insteadServer, "--api-key": insteadServer, "--home": insteadServer, "--local": insteadServer,
	"email attachments --save": insteadDownload, "email attachments --all": insteadDownload, "email attachments --dir": insteadDownload,
	"email check --private": insteadPrivate, "email expect --private": insteadPrivate,
	"email expect --update":  "over SSH nothing is written on the box: print the snapshot with ssh {host} email snapshot ID > FILE",
	"email render --browser": "the box's own browser renders the mail",
	"inbox import FILE":      "over SSH an export is read from standard input: ssh {host} inbox import - < inbox.json",
}

// sshPath is a command's path in the profile's tables.
func sshPath(cmd *cobra.Command) string {
	return strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()), " ")
}

// sshProfile applies the SSH profile to one command line.
type sshProfile struct {
	host string // the ssh destination teammates use (the advertised host)
	scp  string // "scp -P PORT HOST:"
}

// instead fills in a message's placeholders.
func (p sshProfile) instead(msg string) string {
	return strings.NewReplacer("{scp}", p.scp, "{host}", p.host).Replace(msg)
}

// refusal is the usage error of something the profile refuses.
func (p sshProfile) refusal(what, msg string) error {
	return cmdutil.UsageError{Msg: fmt.Sprintf("%s is not available over SSH: %s", what, p.instead(msg))}
}

// sshRootHelp is the root's help over SSH.
const sshRootHelp = `sandview on a shared box, over SSH: the commands below run as your key's
user of the box's server, against your own inboxes and the catch-all.
The inbox viewer opens with ssh -t {host}; mails and attachments download
with {scp}ADDRESS/ID.eml . (or sftp).

`

// hide hides from root's help and its "did you mean" every command and
// flag the profile refuses, and gives the root the SSH help.
func (p sshProfile) hide(root *cobra.Command) {
	root.Long = p.instead(sshRootHelp) + exitCodesHelp
	for _, name := range []string{"url", "api-key", "home", "local"} {
		if f := root.PersistentFlags().Lookup(name); f != nil {
			f.Hidden = true
		}
	}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		allowed, ok := sshAllowed[sshPath(cmd)]
		if !ok {
			cmd.Hidden = true
		}
		cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if !slices.Contains(allowed, f.Name) {
				f.Hidden = true
			}
		})
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// check says whether args may run over SSH: nil, or a usage error saying
// what is refused and what to do instead. It parses args on a command tree
// of its own, so the tree that runs them parses them once.
func (p sshProfile) check(args []string) error {
	root := newRootCommand(&globalOptions{})
	p.hide(root)
	root.InitDefaultHelpCmd()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return cmdutil.UsageError{Msg: err.Error()}
	}
	path := sshPath(cmd)
	if msg, refused := sshRefused[path]; refused {
		return p.refusal("`"+cmd.CommandPath()+"`", msg)
	}
	allowed, ok := sshAllowed[path]
	if !ok {
		return p.refusal("`"+cmd.CommandPath()+"`", "it is not in the SSH profile")
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	if err := cmd.ParseFlags(rest); err != nil {
		return cmdutil.UsageError{Msg: err.Error()}
	}
	var refused error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if refused != nil || f.Name == "help" {
			return
		}
		if slices.Contains(allowed, f.Name) {
			if sshStdinOnly[path+" --"+f.Name] && f.Value.String() != "-" {
				refused = p.refusal("a FILE", "over SSH --"+f.Name+" reads standard input: ssh {host} "+path+" … --"+f.Name+" - < FILE")
			}
			if sshStdoutOnly[path+" --"+f.Name] && f.Value.String() != "-" {
				refused = p.refusal("a FILE", "over SSH --"+f.Name+" writes to standard output: ssh {host} "+path+" ID --"+f.Name+" - > FILE")
			}
			return
		}
		refused = p.refusal("--"+f.Name, flagRefusal(path, f.Name))
	})
	if refused != nil {
		return refused
	}
	return p.checkArgs(cmd, path, cmd.Flags().Args())
}

// flagRefusal is what to do instead of the flag name of the command at
// path: the root's own flags (the TUI's, --local's) are the box's.
func flagRefusal(path, name string) string {
	if msg, ok := sshRefused[path+" --"+name]; ok {
		return msg
	}
	if msg, ok := sshRefused["--"+name]; ok {
		return msg
	}
	if path == "" {
		return insteadViewer
	}
	return "it is not in the SSH profile"
}

// checkArgs refuses the positional arguments that would be paths on the
// box, an unknown command (with a "did you mean" among those SSH allows)
// and the root without --version or --help (it runs the TUI).
func (p sshProfile) checkArgs(cmd *cobra.Command, path string, args []string) error {
	switch {
	case cmd.HasSubCommands() && len(args) > 0:
		return unknownCommand(cmd, args[0])
	case path == "" && !cmd.Flags().Changed("version") && !cmd.Flags().Changed("help"):
		return cmdutil.UsageError{Msg: p.instead("over SSH a command line needs a command (see `ssh {host} help`); the inbox viewer opens with ssh -t {host}")}
	case path == "inbox import" && len(args) == 1 && args[0] != "-":
		return p.refusal("a FILE", sshRefused["inbox import FILE"])
	}
	if bound, ok := sshMaxArgs[path]; ok && len(args) > bound.max {
		return p.refusal("a FILE", bound.instead)
	}
	return nil
}
