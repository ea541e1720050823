package sshbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
)

// Defaults of the limits.
const (
	DefaultMaxSessions        = 50
	DefaultMaxSessionsPerUser = 5
	DefaultIdleTimeout        = 30 * time.Minute
)

// Config is what the SSH transport needs.
type Config struct {
	Addr               string // listen address, host:port
	HostKeyPath        string // created (Ed25519, 0600) when missing
	AuthorizedKeysPath string // authorized_keys format; read again when it changes
	MaxSessions        int    // sessions at once in total (0: DefaultMaxSessions)
	MaxSessionsPerUser int    // sessions at once per key (0: DefaultMaxSessionsPerUser)
	IdleTimeout        time.Duration
	Logger             *slog.Logger

	// Interactive serves a session that asked for a terminal and gave no
	// command (the TUI). It returns when the user is done or ctx ends.
	Interactive func(ctx context.Context, s Session)
	// Command runs a command line without a terminal and returns its exit
	// status. The line has at most MaxCommandBytes bytes and
	// MaxCommandWords words.
	Command func(ctx context.Context, s Session, args []string) int
	// Files, when set, serves the sftp subsystem (and so OpenSSH 9's scp):
	// the handlers of the session's virtual tree. Nil: no sftp.
	Files func(ctx context.Context, s Session) sftp.Handlers
	// Removed, when set, is called once for each user whose key is taken
	// out of the authorized keys file (its connections are closed by
	// then), from a goroutine of the box: it should not block for long.
	// A key whose role or options change, or that expires, has its
	// connections closed but is not Removed.
	Removed func(u User)
}

// Session is one SSH session of a known user. Its Environ holds only
// TERM, COLORTERM, LANG, LC_* and NO_COLOR (the client's other env
// requests are refused), and its Pty's sizes (the first and each change)
// are within MaxWidth x MaxHeight.
type Session struct {
	ssh.Session
	User User
}

// Box is a running SSH transport.
type Box struct {
	cfg         Config
	srv         *ssh.Server
	ln          net.Listener
	keys        *authorizedKeys
	limits      *limiter
	conns       connections
	fingerprint string
	base        context.Context
	stop        context.CancelFunc
	served      chan struct{} // closed when Serve returns
	watching    chan struct{} // closed when watchKeys returns
}

// Start listens on cfg.Addr and serves until Shutdown.
func Start(cfg Config) (*Box, error) {
	if cfg.Interactive == nil || cfg.Command == nil {
		return nil, errors.New("ssh: the interactive and command handlers are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxSessionsPerUser <= 0 {
		cfg.MaxSessionsPerUser = DefaultMaxSessionsPerUser
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	hostKey, hostPublic, err := loadOrCreateHostKey(cfg.HostKeyPath)
	if err != nil {
		return nil, err
	}
	b := &Box{
		cfg:         cfg,
		keys:        &authorizedKeys{path: cfg.AuthorizedKeysPath, logger: cfg.Logger},
		limits:      newLimiter(cfg.MaxSessions, cfg.MaxSessionsPerUser),
		fingerprint: gossh.FingerprintSHA256(hostPublic),
		conns:       connections{set: map[ssh.Context]struct{}{}},
		served:      make(chan struct{}),
		watching:    make(chan struct{}),
	}
	b.base, b.stop = context.WithCancel(context.Background())
	b.keys.refresh() // reads the file once now, so a bad line is logged at start
	opts := []ssh.Option{
		wish.WithHostKeyPEM(hostKey),
		wish.WithPublicKeyAuth(b.authorize),
		wish.WithIdleTimeout(cfg.IdleTimeout),
		wish.WithMiddleware(func(ssh.Handler) ssh.Handler { return b.handle }),
		ssh.WrapConn(b.track),
		onlySessions(b.sessionChannel),
	}
	if cfg.Files != nil {
		opts = append(opts, wish.WithSubsystem("sftp", b.handleSFTP))
	}
	if b.srv, err = wish.NewServer(opts...); err != nil {
		b.stop()
		return nil, fmt.Errorf("ssh: %w", err)
	}
	b.srv.HandshakeTimeout = 10 * time.Second
	if b.ln, err = net.Listen("tcp", cfg.Addr); err != nil {
		b.stop()
		return nil, fmt.Errorf("ssh: listen on %s: %w", cfg.Addr, err)
	}
	go b.watchKeys()
	go func() {
		defer close(b.served)
		_ = b.srv.Serve(b.ln) // returns when Shutdown closes the server
	}()
	return b, nil
}

// onlySessions makes session channels (opened by open) the only channels
// and requests a client may open or make: no port forwarding (direct-tcpip,
// tcpip-forward), no agent or X11 channel, no other global request.
func onlySessions(open ssh.ChannelHandler) ssh.Option {
	return func(s *ssh.Server) error {
		s.ChannelHandlers = map[string]ssh.ChannelHandler{"session": open}
		s.RequestHandlers = map[string]ssh.RequestHandler{}
		s.LocalPortForwardingCallback = nil
		s.ReversePortForwardingCallback = nil
		return nil
	}
}

// Addr is the address the box listens on.
func (b *Box) Addr() string { return b.ln.Addr().String() }

// HostKeyFingerprint is the host key's SHA256 fingerprint, as ssh prints it.
func (b *Box) HostKeyFingerprint() string { return b.fingerprint }

// Shutdown ends every session (their handlers' contexts end, so a TUI
// restores the user's terminal and each session gets its exit status),
// waits for the handlers to return or ctx to end, then closes the listener
// and every connection.
func (b *Box) Shutdown(ctx context.Context) error {
	b.stop()
	ended := b.limits.close()
	var err error
	select {
	case <-ended:
	case <-ctx.Done():
		err = fmt.Errorf("ssh: sessions still open at shutdown: %w", ctx.Err())
	}
	if closeErr := b.srv.Close(); closeErr != nil {
		err = errors.Join(err, closeErr)
	}
	// Serve may not have tracked the listener yet: close it here too.
	_ = b.ln.Close()
	<-b.served
	<-b.watching
	return err
}

// authorize accepts a public key that the authorized keys file (read
// again if it changed) lets in from the client's address, and records its
// fingerprint in the permissions of the attempt. x/crypto/ssh also asks
// about keys a client only offers without signing; the permissions kept
// are those of the key that signs, so sessions take their user from them.
func (b *Box) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	b.reload()
	fp := gossh.FingerprintSHA256(key)
	remote := ctx.RemoteAddr()
	g, ok := b.keys.lookup(fp)
	reason := "unknown key"
	if ok {
		reason = g.refusal(time.Now(), remote)
	}
	if reason != "" {
		attrs := []any{"fp", fp, "remote", remote.String(), "reason", reason}
		if ok {
			attrs = append(attrs, "user", g.Name, "role", g.Role)
		}
		b.audit("refused", attrs...)
		return false
	}
	perms := ctx.Permissions()
	if perms.Extensions == nil {
		perms.Extensions = map[string]string{}
	}
	perms.Extensions[fingerprintExtension] = fp
	return true
}
