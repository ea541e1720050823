// Package sshbox is the SSH transport of a shared test box: it accepts SSH
// users by public key only (an authorized_keys file, read again when it
// changes), keeps its host key, limits sessions per user and in total, and
// hands each session to the interactive or command handler that the binary
// composes (the TUI, the CLI). It knows nothing of mail.
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
	// status.
	Command func(ctx context.Context, s Session, args []string) int
}

// Session is one SSH session of a known user.
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
	fingerprint string
	base        context.Context
	stop        context.CancelFunc
	served      chan error
}

// userKey is the session context's key of the logged-in User.
type userKey struct{}

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
		served:      make(chan error, 1),
	}
	b.base, b.stop = context.WithCancel(context.Background())
	b.keys.lookup(hostPublic) // reads the file once now, so a bad line is logged at start
	b.srv, err = wish.NewServer(
		wish.WithHostKeyPEM(hostKey),
		wish.WithPublicKeyAuth(b.authorize),
		wish.WithIdleTimeout(cfg.IdleTimeout),
		wish.WithMiddleware(func(ssh.Handler) ssh.Handler { return b.handle }),
	)
	if err != nil {
		return nil, fmt.Errorf("ssh: %w", err)
	}
	b.srv.HandshakeTimeout = 10 * time.Second
	if b.ln, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, fmt.Errorf("ssh: listen on %s: %w", cfg.Addr, err)
	}
	go func() { b.served <- b.srv.Serve(b.ln) }()
	return b, nil
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
	<-b.served
	return err
}

// authorize accepts a public key listed in the authorized keys file and
// remembers its user on the connection.
func (b *Box) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	user, ok := b.keys.lookup(key)
	if !ok {
		b.cfg.Logger.Info("ssh: key refused", "remote", ctx.RemoteAddr().String(), "key", gossh.FingerprintSHA256(key))
		return false
	}
	ctx.SetValue(userKey{}, user)
	return true
}

// handle routes one session: a command runs without a terminal, no command
// opens the interactive handler (which needs a terminal).
func (b *Box) handle(sess ssh.Session) {
	user, ok := sess.Context().Value(userKey{}).(User)
	if !ok {
		_ = sess.Exit(1)
		return
	}
	release, err := b.limits.acquire(user.ID)
	if err != nil {
		fmt.Fprintf(sess.Stderr(), "sandview: %v\r\n", err)
		_ = sess.Exit(1)
		return
	}
	defer release()
	ctx, cancel := context.WithCancel(sess.Context())
	defer cancel()
	defer context.AfterFunc(b.base, cancel)()
	s := Session{Session: sess, User: user}
	if args := sess.Command(); len(args) > 0 {
		_ = sess.Exit(b.cfg.Command(ctx, s, args))
		return
	}
	if _, _, isTerminal := sess.Pty(); !isTerminal {
		fmt.Fprint(sess.Stderr(), "sandview: the inbox viewer needs a terminal (ssh -t), or give a command: email list --json\r\n")
		_ = sess.Exit(2)
		return
	}
	b.cfg.Interactive(ctx, s)
	_ = sess.Exit(0)
}
