package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/colorprofile"
	"github.com/pkg/sftp"
	"github.com/spf13/cobra"

	"sandview/client/keystore"
	"sandview/internal/cli/cmdutil"
	"sandview/internal/htmlrender"
	"sandview/internal/sshbox"
	"sandview/internal/sshfiles"
	"sandview/server"
	"sandview/server/access"
	"sandview/tui"
	"sandview/tui/ui"
)

// sshShare serves the running server to SSH users: each key is a user, a
// principal of the server with an API key of its own and its role, so the
// server confines what it does (server/access); each has a sandview home
// of its own under the state directory (its keystore, its inboxes' keys),
// and every user sees the catch-all inbox.
type sshShare struct {
	srv     *server.Server
	dir     string // <state>/ssh
	logger  *slog.Logger
	profile sshProfile    // set before ready is closed
	ready   chan struct{} // closed once the box listens (its port known)
	host    string        // the advertised host
	// renderer is the box's browser, shared by every user's renders
	// (started on the first; each render in a browser context of its own).
	renderer *htmlrender.Renderer
}

// startSSH starts the SSH transport over srv with cfg's listener and
// limits (the settings') and prints where it listens (at the advertised
// host) and its host key's fingerprint.
func startSSH(out io.Writer, logger *slog.Logger, srv *server.Server, stateDir, host string, cfg sshbox.Config, renderer *htmlrender.Renderer) (*sshbox.Box, error) {
	share := &sshShare{srv: srv, dir: filepath.Join(stateDir, "ssh"), logger: logger, ready: make(chan struct{}), host: host, renderer: renderer}
	if cfg.AuthorizedKeysPath == "" {
		cfg.AuthorizedKeysPath = filepath.Join(share.dir, "authorized_keys")
	}
	keys := cfg.AuthorizedKeysPath
	cfg.HostKeyPath, cfg.Logger = filepath.Join(share.dir, "host_ed25519"), logger
	cfg.Interactive, cfg.Command, cfg.Files, cfg.Removed = share.interactive, share.command, share.files, share.removed
	box, err := sshbox.Start(cfg)
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(box.Addr())
	scpHost := host
	if strings.Contains(host, ":") {
		scpHost = "[" + host + "]" // an IPv6 address, as scp reads it
	}
	share.profile = sshProfile{host: sshDestination(host, box.Addr()), scp: "scp -P " + port + " " + scpHost + ":"}
	close(share.ready)
	fmt.Fprintf(out, "  SSH       %s (ssh -p %s %s; keys in %s)\n  host key  %s\n",
		net.JoinHostPort(host, port), port, host, keys, box.HostKeyFingerprint())
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

// principal is the server's principal of an SSH user: its key's
// fingerprint, its name and its role (a role sshbox does not know is
// the least, viewer).
func principal(u sshbox.User) access.Principal {
	role, err := access.ParseRole(u.Role)
	if err != nil {
		role = access.RoleViewer
	}
	return access.Principal{ID: u.ID, Name: u.Name, Role: role}
}

// globals are the settings of one user's commands: the server, the
// user's own principal key (never the server's key) and home.
func (x *sshShare) globals(u sshbox.User) *globalOptions {
	return &globalOptions{url: x.srv.URL(), apiKey: x.srv.PrincipalKey(principal(u)), home: x.userHome(u), renderer: x.renderer}
}

// removed revokes the principal of a key taken out of the authorized keys
// file: a request still in flight with its API key answers 401.
func (x *sshShare) removed(u sshbox.User) {
	x.srv.RevokePrincipal(u.ID)
	x.logger.Info("ssh: principal revoked", "event", "revoked", "fp", u.ID, "user", u.Name)
}

// interactive runs the TUI for one user in its SSH terminal.
func (x *sshShare) interactive(ctx context.Context, s sshbox.Session) {
	g := x.globals(s.User)
	sess, err := openSession(ctx, g, g.url, g.apiKey, tui.ClientOptions()...)
	if err != nil {
		fmt.Fprintf(s.Stderr(), "sandview: %v\r\n", err)
		return
	}
	defer sess.Close()
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
	select {
	case <-x.ready: // a session may come in before startSSH knows the port
	case <-ctx.Done():
		return
	}
	set := x.remoteSettings(env)
	smtpAddr := x.srv.SMTPAddr()
	if _, port, err := net.SplitHostPort(smtpAddr); err == nil {
		smtpAddr = net.JoinHostPort(x.host, port) // as teammates reach it
	}
	set.ServerLabel = s.User.Name + " @ " + smtpAddr
	set.SMTPAddr, set.CatchAll = smtpAddr, catchAll
	cfg := tui.Config{Client: sess.Client, Keystore: sess.Keystore, Settings: set}
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
func (x *sshShare) attachCatchAll(ctx context.Context, sess *cmdutil.Session) string {
	address := x.srv.CatchAll()
	if address == "" {
		return ""
	}
	if _, ok := sess.Client.Inbox(address); ok {
		return address
	}
	in, err := sess.PlainInbox(ctx, address)
	if err != nil {
		x.logger.Info("ssh: the catch-all inbox is not shared", "inbox", address, "err", err)
		return ""
	}
	if err := sess.Save(in); err != nil {
		x.logger.Warn("ssh: keep the catch-all in a user's keystore", "err", err)
	}
	return address
}

// attachOnStart puts the catch-all in the keystore of the user of g
// before a command runs, so that a key's first command sees it; a
// keystore that holds it already is only looked at.
func (x *sshShare) attachOnStart(ctx context.Context, g *globalOptions, u sshbox.User) {
	address := x.srv.CatchAll()
	if address == "" {
		return
	}
	if ks, err := keystore.Open(keystore.Dir(g.home, g.url)); err == nil && ks.Has(address) {
		return
	}
	sess, err := openSession(ctx, g, g.url, g.apiKey)
	if err != nil {
		x.logger.Info("ssh: attach the catch-all", "user", u.Name, "err", err)
		return
	}
	defer sess.Close()
	x.attachCatchAll(ctx, sess)
}

// command runs one CLI command line for a user, as the user's principal
// and in the user's home, if the SSH profile allows it (see sshProfile);
// the catch-all is in the user's keystore before it runs.
func (x *sshShare) command(ctx context.Context, s sshbox.Session, args []string) int {
	select {
	case <-x.ready: // a session may come in before startSSH knows the port
	case <-ctx.Done():
		return exitFailure
	}
	profile := func(root *cobra.Command, g *globalOptions) error {
		if err := x.profile.check(args); err != nil {
			return err
		}
		x.profile.hide(root)
		env := g.env
		*g = *x.globals(s.User)
		g.env = env
		x.attachOnStart(ctx, g, s.User)
		return nil
	}
	_, _, tty := s.Pty()
	return execute(ctx, sshEnvironment(s.Environ()), args, s, sshOutput{Writer: s, tty: tty}, s.Stderr(), nil, profile)
}

// sshOutput is a session's standard output: a terminal when the client
// asked for one (ssh -t), so that untrusted text is sanitized for it as
// for a local terminal (see isTerminal).
type sshOutput struct {
	io.Writer
	tty bool
}

// IsTerminal reports whether the output is the client's terminal.
func (o sshOutput) IsTerminal() bool { return o.tty }

// remoteSettings are the TUI settings of an SSH session: what the allowed
// part of its environment says of the terminal (colour, hyperlinks),
// confined to the remote profile, so that no setting of the client picks
// a program, a path or an address of the box.
func (x *sshShare) remoteSettings(env []string) *tui.Settings {
	set := sshEnvironment(env).tuiSettings(nil)
	set.Confine(&ui.Remote{Fetch: x.profile.scp, Shell: "ssh " + x.profile.host, AttachmentNames: sshfiles.AttachmentNames})
	withRenderer(set, x.renderer)
	return set
}

// sshEnvironment is an SSH session's environment as a command sees it:
// only the variables a terminal program needs to draw (sshbox.AllowedEnv)
// reach a setting, whatever the session holds.
func sshEnvironment(lines []string) environment {
	var kept []string
	for _, line := range lines {
		if name, _, ok := strings.Cut(line, "="); ok && sshbox.AllowedEnv(name) {
			kept = append(kept, line)
		}
	}
	return listEnvironment(kept)
}

// files serves the user's read-only SFTP tree (see sshfiles): the
// inboxes of the user's keystore and the catch-all, read with the user's
// principal key and decrypted with the user's keystore only. The session
// stays open until ctx ends.
func (x *sshShare) files(ctx context.Context, s sshbox.Session) sftp.Handlers {
	g := x.globals(s.User)
	sess, err := openSession(ctx, g, g.url, g.apiKey)
	if err != nil {
		x.logger.Warn("ssh: open the sftp tree", "user", s.User.Name, "err", err)
		return sshfiles.Unavailable()
	}
	context.AfterFunc(ctx, sess.Close)
	x.attachCatchAll(ctx, sess)
	return sshfiles.Handlers(sess.Client)
}
