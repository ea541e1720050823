package sshbox

import (
	"context"
	"net"
	"sync"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// keysPoll is how often the authorized_keys file is looked at.
const keysPoll = time.Second

// fingerprintExtension is the permission extension that names the key a
// connection authenticated with: the key that signed, since x/crypto/ssh
// keeps the permissions the callback returned for that key.
const fingerprintExtension = "sandview-key-fp"

// connections are the box's open connections, each known by its
// charm.land/ssh context (canceled when it closes).
type connections struct {
	mu  sync.Mutex
	set map[ssh.Context]struct{}
}

// track is the ConnCallback: it remembers every connection until it
// closes.
func (b *Box) track(ctx ssh.Context, c net.Conn) net.Conn {
	b.conns.mu.Lock()
	b.conns.set[ctx] = struct{}{}
	b.conns.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.conns.mu.Lock()
		delete(b.conns.set, ctx)
		b.conns.mu.Unlock()
	})
	return c
}

// disconnect closes every authenticated connection of the users whose
// ID is in ids (all of them when ids is nil): their sessions end with it.
func (b *Box) disconnect(ids map[string]bool) {
	b.conns.mu.Lock()
	var doomed []*gossh.ServerConn
	for ctx := range b.conns.set {
		// Set once the handshake is done, after the permissions.
		conn, ok := ctx.Value(ssh.ContextKeyConn).(*gossh.ServerConn)
		if ok && (ids == nil || ids[connFingerprint(conn)]) {
			doomed = append(doomed, conn)
		}
	}
	b.conns.mu.Unlock()
	for _, conn := range doomed {
		_ = conn.Close()
	}
}

// connFingerprint is the fingerprint of the key conn authenticated with.
func connFingerprint(conn *gossh.ServerConn) string {
	if conn.Permissions == nil {
		return ""
	}
	return conn.Permissions.Extensions[fingerprintExtension]
}

// connGrant returns the current grant of conn's key, or why it no longer
// lets conn in.
func (b *Box) connGrant(conn *gossh.ServerConn) (grant, string) {
	g, ok := b.keys.lookup(connFingerprint(conn))
	if !ok {
		return grant{}, "unknown key"
	}
	return g, g.refusal(time.Now(), conn.RemoteAddr())
}

// watchKeys reads the authorized_keys file again each keysPoll until the
// box shuts down, and disconnects the users it no longer lets in.
func (b *Box) watchKeys() {
	defer close(b.watching)
	tick := time.NewTicker(keysPoll)
	defer tick.Stop()
	for {
		select {
		case <-b.base.Done():
			return
		case now := <-tick.C:
			b.reload()
			if gone := b.keys.expired(now); len(gone) > 0 {
				b.disconnect(userIDs(gone))
			}
		}
	}
}

// reload reads the authorized_keys file again if it changed, disconnects
// the users it took away or changed, and tells Config.Removed of those it
// took away.
func (b *Box) reload() {
	ch := b.keys.refresh()
	switch {
	case ch.failed:
		b.disconnect(nil)
		return
	case len(ch.gone)+len(ch.changed) == 0:
		return
	}
	ids := userIDs(append(ch.gone, ch.changed...))
	b.disconnect(ids)
	for _, u := range ch.gone {
		b.audit("removed", "fp", u.ID, "user", u.Name, "role", u.Role)
		if b.cfg.Removed != nil {
			b.cfg.Removed(u)
		}
	}
	for _, u := range ch.changed {
		b.audit("changed", "fp", u.ID, "user", u.Name, "role", u.Role)
	}
}

func userIDs(us []User) map[string]bool {
	ids := make(map[string]bool, len(us))
	for _, u := range us {
		ids[u.ID] = true
	}
	return ids
}
