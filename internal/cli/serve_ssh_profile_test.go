package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"sandview/internal/cli/cmdutil"
)

// TestSSHProfileClassifiesEveryCommandAndFlag walks the whole command
// tree: every command is allowed over SSH or refused with what to do
// instead, and every flag of an allowed command is allowed or refused. A
// command or flag added later fails here until the profile classifies it.
func TestSSHProfileClassifiesEveryCommandAndFlag(t *testing.T) {
	root := newRootCommand(&globalOptions{})
	root.InitDefaultHelpCmd()
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		path := sshPath(cmd)
		allowed, isAllowed := sshAllowed[path]
		_, isRefused := sshRefused[path]
		switch {
		case isAllowed && isRefused:
			t.Errorf("%q is both allowed and refused over SSH", cmd.CommandPath())
		case !isAllowed && !isRefused:
			t.Errorf("%q is neither allowed nor refused over SSH: classify it in serve_ssh_profile.go", cmd.CommandPath())
		case isAllowed:
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			cmd.Flags().VisitAll(func(f *pflag.Flag) {
				if f.Name == "help" || slices.Contains(allowed, f.Name) {
					return
				}
				_, own := sshRefused[path+" --"+f.Name]
				_, global := sshRefused["--"+f.Name]
				if !own && !global && path != "" {
					t.Errorf("%s --%s is neither allowed nor refused over SSH", cmd.CommandPath(), f.Name)
				}
			})
			for _, name := range allowed {
				if cmd.Flags().Lookup(name) == nil {
					t.Errorf("the SSH profile allows %s --%s, which does not exist", cmd.CommandPath(), name)
				}
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// TestSSHProfileRefusesWhatActsOnTheBox: every command line that would
// take a path, an address or a port on the box, start a program there or
// change the session's server is refused with what to do instead; the
// ordinary ones pass; a mistyped command gets a "did you mean" among the
// commands SSH allows.
func TestSSHProfileRefusesWhatActsOnTheBox(t *testing.T) {
	p := sshProfile{host: "-p 2222 box.example", scp: "scp -P 2222 box.example:"}
	for _, line := range []string{
		"email list --json", "email list --inbox qa@sandbox.test --search reset", "wait --to bob@example.org --timeout 30s",
		"inbox list", "inbox export qa@sandbox.test", "inbox import -", "email attachments ID --json",
		"email check ID --links", "webhook create --inbox a@b.test --endpoint https://example.org/h", "help email",
		"email --help", "--version", "webhook update ID --event email.received --event email.read",
		"webhook create --endpoint https://example.org/h --custom-body -",
		"email render ID -o - --width 375 --dark --allow-remote", "email render ID --output=- --height 900",
	} {
		if err := p.check(strings.Fields(line)); err != nil {
			t.Errorf("%s: refused: %v", line, err)
		}
	}
	for line, want := range map[string]string{
		"inbox import /srv/data/ssh/users/x/inboxes/b.json":                         "ssh -p 2222 box.example inbox import - < inbox.json",
		"inbox export qa@sandbox.test /tmp/x.json":                                  "inbox export ADDRESS > inbox.json",
		"email attachments ID --all --dir /root/.ssh":                               "download with scp -P 2222 box.example:ADDRESS/ID/ATTACHMENT-NAME",
		"email attachments ID --save 1":                                             "download with scp",
		"email open ID":                                                             "scp -P 2222 box.example:ADDRESS/ID.eml",
		"email check ID --links --private":                                          "never checked on private addresses",
		"webhook listen --addr 127.0.0.1:9000":                                      "it would listen on a port of the box",
		"email list --home /tmp/other":                                              "each SSH key acts as its own user",
		"email list --api-key=stolen":                                               "each SSH key acts as its own user",
		"email list --url http://127.0.0.1:1":                                       "each SSH key acts as its own user",
		"wait --local":                                                              "each SSH key acts as its own user",
		"webhook create --endpoint https://example.org/h --custom-body /etc/passwd": "--custom-body reads standard input",
		"webhook update ID --custom-body=/srv/api-key":                              "--custom-body reads standard input",
		"email render ID -o /etc/cron.d/x":                                          "ssh -p 2222 box.example email render ID --output - > FILE",
		"email render ID -o - --browser /tmp/evil":                                  "the box's own browser renders the mail",
		"serve --http 0.0.0.0:80":                                                   "the box runs the server",
		"config --url http://x":                                                     "nothing to configure",
		"send --to a@b.test":                                                        "send test mail from your machine",
		"sendmail -t -i -f a@b.test":                                                "send mail from your machine to the box's SMTP port",
		"completion bash":                                                           "on your own machine",
		"--theme dark":                                                              "open the inbox viewer with ssh -t -p 2222 box.example",
		"--demo":                                                                    "open the inbox viewer with ssh -t",
		"--":                                                                        "needs a command",
		"emial list":                                                                `did you mean "email"?`,
		"inbox lsit":                                                                `did you mean "list"?`,
		"serv":                                                                      `unknown command "serv"`,
		"__complete email list":                                                     `unknown command "__complete"`,
	} {
		err := p.check(strings.Fields(line))
		if err == nil || !cmdutil.IsUsageError(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want a usage error with %q", line, err, want)
		}
	}
	if err := p.check([]string{"serv"}); err != nil && strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a refused command is suggested: %v", err)
	}
}

// TestSSHEnvironmentKeepsOnlyTerminalSettings: whatever a session's
// environment holds, only TERM, COLORTERM, LANG, LC_* and NO_COLOR reach
// a command's settings.
func TestSSHEnvironmentKeepsOnlyTerminalSettings(t *testing.T) {
	env := sshEnvironment([]string{"TERM=xterm-256color", "LC_ALL=C.UTF-8", "NO_COLOR=1", "SANDVIEW_HOME=/tmp/x",
		"SERVICE_URL=http://evil", "SERVICE_API_KEY=k", "BROWSER=/tmp/x.sh", "SHELL=/bin/sh", "HOME=/root", "XDG_CONFIG_HOME=/tmp"})
	for _, name := range []string{"SANDVIEW_HOME", "SERVICE_URL", "SERVICE_API_KEY", "BROWSER", "SHELL", "HOME", "XDG_CONFIG_HOME"} {
		if v := env.get(name); v != "" {
			t.Errorf("%s=%q reached the settings", name, v)
		}
	}
	if env.get("TERM") != "xterm-256color" || env.get("LC_ALL") != "C.UTF-8" || !env.noColor() {
		t.Error("the terminal's settings were lost")
	}
}

// TestSSHHelpShowsOnlyWhatSSHAllows: over SSH the help lists neither the
// refused commands nor the refused flags.
func TestSSHHelpShowsOnlyWhatSSHAllows(t *testing.T) {
	help := func(args ...string) string {
		var out strings.Builder
		code := execute(t.Context(), listEnvironment(nil), args, strings.NewReader(""), &out, &out, nil,
			func(root *cobra.Command, _ *globalOptions) error { sshProfile{}.hide(root); return nil })
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, out.String())
		}
		return out.String()
	}
	top := help("--help")
	if !strings.Contains(top, "on a shared box, over SSH") {
		t.Errorf("the SSH help is not the box's:\n%s", top)
	}
	_, top, _ = strings.Cut(top, "Available Commands:")
	for _, hidden := range []string{"serve", "config", "send", "completion", "--url", "--api-key", "--home", "--local", "--theme", "--demo"} {
		if strings.Contains(top, hidden) {
			t.Errorf("the SSH help shows %s:\n%s", hidden, top)
		}
	}
	if !strings.Contains(top, "email") || !strings.Contains(top, "wait") {
		t.Errorf("the SSH help lacks the allowed commands:\n%s", top)
	}
	if att := help("email", "attachments", "--help"); strings.Contains(att, "--dir string") || strings.Contains(att, "--save int") || !strings.Contains(att, "--json") {
		t.Errorf("email attachments' SSH help:\n%s", att)
	}
}
