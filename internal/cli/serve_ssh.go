package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/colorprofile"

	"sandview/internal/sshbox"
	"sandview/server"
	"sandview/tui"
)

// sshShare serves the running server to SSH users: each key is a user with
// a sandview home of its own under the state directory (its keystore, its
// inboxes' keys), and every user sees the catch-all inbox.
type sshShare struct {
	srv    *server.Server
	apiKey string
	dir    string // <state>/ssh
	logger *slog.Logger
}

// startSSH starts the SSH transport over srv and prints where it listens
// and its host key's fingerprint.
func startSSH(out io.Writer, logger *slog.Logger, srv *server.Server, apiKey, stateDir string, o sshSettings) (*sshbox.Box, error) {
	share := &sshShare{srv: srv, apiKey: apiKey, dir: filepath.Join(stateDir, "ssh"), logger: logger}
	keys := o.authorizedKeys
	if keys == "" {
		keys = filepath.Join(share.dir, "authorized_keys")
	}
	box, err := sshbox.Start(sshbox.Config{
		Addr: o.addr, HostKeyPath: filepath.Join(share.dir, "host_ed25519"), AuthorizedKeysPath: keys,
		MaxSessions: o.maxSessions, MaxSessionsPerUser: o.maxPerKey, IdleTimeout: o.idleTimeout,
		Logger: logger, Interactive: share.interactive, Command: share.command,
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "  SSH       %s (keys in %s)\n  host key  %s\n", box.Addr(), keys, box.HostKeyFingerprint())
	if srv.CatchAll() == "" {
		fmt.Fprintln(out, "  (no --catch-all: SSH users see only the inboxes they create)")
	}
	return box, nil
}

// userHome is the sandview home of one SSH user.
func (x *sshShare) userHome(u sshbox.User) string {
	id := strings.NewReplacer("/", "_", "+", "-", "=", "").Replace(strings.TrimPrefix(u.ID, "SHA256:"))
	return filepath.Join(x.dir, "users", id)
}

// globals are the command-line settings of one user's commands.
func (x *sshShare) globals(u sshbox.User) *globalOptions {
	return &globalOptions{url: x.srv.URL(), apiKey: x.apiKey, home: x.userHome(u)}
}

// interactive runs the TUI for one user in its SSH terminal.
func (x *sshShare) interactive(ctx context.Context, s sshbox.Session) {
	g := x.globals(s.User)
	sess, err := openSession(ctx, g, g.url, g.apiKey, tui.ClientOptions()...)
	if err != nil {
		fmt.Fprintf(s.Stderr(), "sandview: %v\r\n", err)
		return
	}
	defer sess.close()
	catchAll := x.attachCatchAll(ctx, sess)
	pty, windows, _ := s.Pty()
	env := append(s.Environ(), "TERM="+pty.Term)
	resize := make(chan tui.WindowSize)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case w := <-windows:
				select {
				case resize <- tui.WindowSize{Width: w.Width, Height: w.Height}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	set := listEnvironment(env).tuiSettings(nil)
	set.ServerLabel = s.User.Name + " @ " + x.srv.SMTPAddr()
	set.SMTPAddr, set.CatchAll = x.srv.SMTPAddr(), catchAll
	cfg := tui.Config{Client: sess.client, Keystore: sess.keystore, Settings: set}
	err = tui.RunRemote(ctx, cfg, tui.Terminal{
		In: s, Out: s, Env: env, Width: pty.Window.Width, Height: pty.Window.Height,
		Profile: colorprofile.Env(env), Resize: resize,
	})
	if err != nil {
		x.logger.Warn("ssh: session ended with an error", "user", s.User.Name, "err", err)
	}
}

// attachCatchAll puts the server's catch-all inbox, when it is plain, in the
// user's keystore and client (as `inbox attach` does), and returns its
// address.
func (x *sshShare) attachCatchAll(ctx context.Context, sess *session) string {
	address := x.srv.CatchAll()
	if address == "" {
		return ""
	}
	if _, ok := sess.client.Inbox(address); ok {
		return address
	}
	in, err := sess.plainInbox(ctx, address)
	if err != nil {
		x.logger.Info("ssh: the catch-all inbox is not shared", "inbox", address, "err", err)
		return ""
	}
	if err := saveToKeystore(sess, in); err != nil {
		x.logger.Warn("ssh: keep the catch-all in a user's keystore", "err", err)
	}
	return address
}

// sshCommands are the commands an SSH user may run; serve, config and the
// TUI's --local are the box's own.
var sshCommands = map[string]bool{"email": true, "inbox": true, "wait": true, "webhook": true, "help": true}

// command runs one CLI command line for a user, against the box's server
// and in the user's home.
func (x *sshShare) command(ctx context.Context, s sshbox.Session, args []string) int {
	if !sshCommands[args[0]] {
		fmt.Fprintf(s.Stderr(), "sandview: %q is not available over SSH: use email, inbox, wait or webhook\n", args[0])
		return exitUsage
	}
	for _, a := range args {
		for _, own := range []string{"--url", "--api-key", "--home", "--local"} {
			if a == own || strings.HasPrefix(a, own+"=") {
				return usageExit(s.Stderr(), own+" is set by the box over SSH")
			}
		}
	}
	g := x.globals(s.User)
	full := append([]string{"--url", g.url, "--api-key", g.apiKey, "--home", g.home}, args...)
	return execute(ctx, listEnvironment(s.Environ()), full, s, s, s.Stderr(), nil)
}

// usageExit prints a bad invocation's line and returns its exit code.
func usageExit(w io.Writer, msg string) int {
	fmt.Fprintln(w, "sandview: "+msg)
	return exitUsage
}
