package sshbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"charm.land/ssh"
	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
)

// Bounds of a command line, checked on the raw line before anything
// splits it into words.
const (
	MaxCommandBytes = 4096
	MaxCommandWords = 64 // words separated by white space
)

// Kinds of session, as the audit trail names them.
const (
	kindTUI     = "tui"
	kindCommand = "command"
	kindSFTP    = "sftp"
)

// exitUsage is the exit status of a session refused for how it was asked.
const exitUsage = 2

// handle serves a shell or exec session: a command runs without a
// terminal, no command opens the interactive handler (which needs one).
func (b *Box) handle(sess ssh.Session) {
	raw := sess.RawCommand()
	if strings.TrimSpace(raw) == "" {
		if _, _, isTerminal := sess.Pty(); !isTerminal {
			b.refuse(sess, "no terminal", exitUsage, "the inbox viewer needs a terminal (ssh -t), or give a command: email list --json")
			return
		}
		b.serve(sess, kindTUI, func(ctx context.Context, s Session) int {
			b.cfg.Interactive(ctx, s)
			return 0
		})
		return
	}
	if msg := commandProblem(raw); msg != "" {
		b.refuse(sess, "command", exitUsage, msg)
		return
	}
	b.serve(sess, kindCommand, func(ctx context.Context, s Session) int {
		return b.cfg.Command(ctx, s, sess.Command())
	})
}

// commandProblem says why a raw command line is not run ("" if it may
// be): too long, too many words, or legacy scp.
func commandProblem(raw string) string {
	if len(raw) > MaxCommandBytes {
		return fmt.Sprintf("the command line has %d bytes, more than %d", len(raw), MaxCommandBytes)
	}
	words := strings.Fields(raw)
	if len(words) > MaxCommandWords {
		return fmt.Sprintf("the command line has %d words, more than %d", len(words), MaxCommandWords)
	}
	if words[0] == "scp" {
		return "scp's legacy protocol is not served: use scp without -O (it speaks SFTP)"
	}
	return ""
}

// handleSFTP serves the sftp subsystem with the tree Config.Files gives.
func (b *Box) handleSFTP(sess ssh.Session) {
	b.serve(sess, kindSFTP, func(ctx context.Context, s Session) int {
		server := sftp.NewRequestServer(sess, b.cfg.Files(ctx, s))
		defer context.AfterFunc(ctx, func() { _ = server.Close() })()
		if err := server.Serve(); err != nil && !errors.Is(err, io.EOF) {
			b.cfg.Logger.Info("ssh: sftp session ended", "user", s.User.Name, "err", err)
		}
		return 0
	})
}

// serve runs one session of kind for the user of its key: checked, counted
// against the limits, logged in and out, ended with the box.
func (b *Box) serve(sess ssh.Session, kind string, run func(ctx context.Context, s Session) int) {
	user, reason := b.sessionUser(sess)
	if reason != "" {
		b.refuse(sess, reason, 1, "your key does not let you in")
		return
	}
	release, err := b.limits.acquire(user.ID)
	if err != nil {
		b.refuse(sess, "session limit", 1, err.Error())
		return
	}
	defer release()
	ctx, cancel := context.WithCancel(sess.Context())
	defer cancel()
	defer context.AfterFunc(b.base, cancel)()
	start := time.Now()
	remote := sess.RemoteAddr().String()
	b.audit("login", "fp", user.ID, "user", user.Name, "role", user.Role, "remote", remote, "kind", kind)
	code := run(ctx, Session{Session: sess, User: user})
	b.audit("logout", "fp", user.ID, "user", user.Name, "role", user.Role, "remote", remote, "kind", kind,
		"duration", time.Since(start).Round(time.Millisecond))
	_ = sess.Exit(code)
}

// sessionUser is the user of the key that signed the session's
// connection, if that key still lets it in; else why not.
func (b *Box) sessionUser(sess ssh.Session) (User, string) {
	conn, ok := sess.Context().Value(ssh.ContextKeyConn).(*gossh.ServerConn)
	key := sess.PublicKey()
	if !ok || key == nil || gossh.FingerprintSHA256(key) != connFingerprint(conn) {
		return User{}, "not the key that signed"
	}
	g, reason := b.connGrant(conn)
	return g.User, reason
}

// refuse ends a session that is not served, with one line on its stderr
// and a refusal in the audit trail.
func (b *Box) refuse(sess ssh.Session, reason string, code int, msg string) {
	b.audit("refused", "fp", sessionFingerprint(sess), "remote", sess.RemoteAddr().String(), "reason", reason)
	fmt.Fprintf(sess.Stderr(), "sandview: %s\r\n", msg)
	_ = sess.Exit(code)
}

func sessionFingerprint(sess ssh.Session) string {
	if key := sess.PublicKey(); key != nil {
		return gossh.FingerprintSHA256(key)
	}
	return ""
}

// audit writes one line of the audit trail: event is login, logout,
// refused, removed or changed.
func (b *Box) audit(event string, attrs ...any) {
	b.cfg.Logger.Info("ssh: "+event, append([]any{"event", event}, attrs...)...)
}
