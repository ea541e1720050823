package sshbox

import (
	"encoding/binary"
	"fmt"
	"strings"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Bounds of what a client may ask of a session.
const (
	MaxWidth  = 500 // columns of a terminal, at most
	MaxHeight = 200 // rows of a terminal, at most

	maxPixels   = 1 << 14 // a terminal's width or height in pixels, at most
	maxEnvVars  = 16      // env requests kept per session
	maxEnvValue = 256     // bytes of an env value
	maxTermName = 64      // bytes of the TERM of a pty request
)

// sessionRequests are the session requests a client may make besides env,
// pty-req and window-change (which guardRequest checks); every other one
// (x11-req, auth-agent-req@openssh.com, …) is refused.
var sessionRequests = map[string]bool{"shell": true, "exec": true, "subsystem": true, "signal": true, "break": true}

// sessionChannel opens a session channel of an authenticated connection
// whose key still lets it in, with every request of the session passing
// guardRequest before charm.land/ssh sees it. A connection whose key was
// taken away is closed.
func (b *Box) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	g, reason := b.connGrant(conn)
	if reason != "" {
		b.audit("refused", "fp", connFingerprint(conn), "remote", conn.RemoteAddr().String(), "reason", reason)
		_ = nc.Reject(gossh.Prohibited, "your key does not let you in")
		_ = conn.Close()
		return
	}
	ssh.DefaultSessionHandler(srv, conn, guardedChannel{NewChannel: nc, noPty: g.noPty}, ctx)
}

// guardedChannel is a session channel whose requests are filtered.
type guardedChannel struct {
	gossh.NewChannel
	noPty bool
}

// Accept accepts the channel and hands on only the requests that pass
// guardRequest, in their order; the others are refused.
func (c guardedChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, in, err := c.NewChannel.Accept()
	if err != nil {
		return ch, in, fmt.Errorf("accept a session: %w", err)
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		envs := 0
		for req := range in {
			if !guardRequest(req, c.noPty, &envs) {
				if req.WantReply {
					_ = req.Reply(false, nil)
				}
				continue
			}
			out <- req
		}
	}()
	return ch, out, nil
}

// guardRequest says whether a session request may go on, rewriting the
// sizes of pty-req and window-change into bounds; envs counts the env
// requests kept.
func guardRequest(req *gossh.Request, noPty bool, envs *int) bool {
	switch req.Type {
	case "env":
		var kv struct{ Name, Value string }
		if gossh.Unmarshal(req.Payload, &kv) != nil || *envs >= maxEnvVars ||
			!AllowedEnv(kv.Name) || len(kv.Value) > maxEnvValue || hasControl(kv.Value) {
			return false
		}
		*envs++
		return true
	case "pty-req":
		if noPty {
			return false
		}
		return clampPtyRequest(req.Payload)
	case "window-change":
		return len(req.Payload) >= 16 && clampWindow(req.Payload[:16])
	}
	return sessionRequests[req.Type]
}

// AllowedEnv reports whether a client may set the variable name: only
// what a terminal program needs to draw (TERM, COLORTERM, LANG, LC_*,
// NO_COLOR).
func AllowedEnv(name string) bool {
	switch name {
	case "TERM", "COLORTERM", "LANG", "NO_COLOR":
		return true
	}
	return strings.HasPrefix(name, "LC_") && len(name) > 3 && strings.IndexFunc(name[3:], func(r rune) bool {
		return (r < 'A' || r > 'Z') && r != '_'
	}) < 0
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}

// clampPtyRequest checks a pty-req payload (TERM, the window, modes) and
// clamps its window in place.
func clampPtyRequest(p []byte) bool {
	if len(p) < 4 {
		return false
	}
	n := binary.BigEndian.Uint32(p)
	if n == 0 || n > maxTermName || uint64(len(p)) < 4+uint64(n)+16 {
		return false
	}
	for _, c := range p[4 : 4+n] {
		if c <= 0x20 || c >= 0x7f {
			return false
		}
	}
	return clampWindow(p[4+n : 4+n+16])
}

// clampWindow rewrites a window's four sizes (columns, rows, pixel width,
// pixel height) into bounds: 1..MaxWidth columns, 1..MaxHeight rows.
func clampWindow(w []byte) bool {
	bounds := [4][2]uint32{{1, MaxWidth}, {1, MaxHeight}, {0, maxPixels}, {0, maxPixels}}
	for i, b := range bounds {
		v := min(max(binary.BigEndian.Uint32(w[4*i:]), b[0]), b[1])
		binary.BigEndian.PutUint32(w[4*i:], v)
	}
	return true
}
