package sshbox

import (
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"sandview/model/termtext"
)

// Roles of a user, given by the role="…" option of its key.
const (
	RoleViewer = "viewer"
	RoleMember = "member" // the default
	RoleAdmin  = "admin"
)

func validRole(r string) bool { return r == RoleViewer || r == RoleMember || r == RoleAdmin }

// User is one SSH user of the box: one authorized public key.
type User struct {
	// ID is the key's SHA256 fingerprint ("SHA256:…"): what the user's
	// state is kept under.
	ID string
	// Name is the key's comment (sanitized), else a short fingerprint.
	Name string
	// Role is RoleViewer, RoleMember or RoleAdmin.
	Role string
}

// grant is one loaded line of the authorized_keys file: a user and what
// its key's options allow.
type grant struct {
	User
	line    int
	options string       // as written: a change of options is a change of rights
	from    hostPatterns // nil: from any address
	expires time.Time    // zero: never
	noPty   bool         // the key may not ask for a terminal
}

// refusal says why g does not let a client at remote in at now: "" when
// it does, else "expired" or "from".
func (g grant) refusal(now time.Time, remote net.Addr) string {
	switch {
	case !g.expires.IsZero() && !now.Before(g.expires):
		return "expired"
	case !g.from.allows(remote):
		return "from"
	}
	return ""
}

// keyChanges is what a new reading of the file took away.
type keyChanges struct {
	gone    []User // keys no longer in the file
	changed []User // keys whose role or options changed
	failed  bool   // the file could not be read: nobody is let in
}

// authorizedKeys is the authorized_keys file, read again whenever it
// changes (its identity, size or modification time).
type authorizedKeys struct {
	path   string
	logger *slog.Logger

	mu     sync.Mutex
	seen   os.FileInfo // of the last reading; nil when the file was missing
	read   bool        // seen is meaningful
	usable bool        // the last reading succeeded
	grants map[string]grant
}

// lookup returns the current grant of the key with fingerprint fp.
func (a *authorizedKeys) lookup(fp string) (grant, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	g, ok := a.grants[fp]
	return g, ok && a.usable
}

// expired returns the users whose key expired by now.
func (a *authorizedKeys) expired(now time.Time) []User {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []User
	for _, g := range a.grants {
		if !g.expires.IsZero() && !now.Before(g.expires) {
			out = append(out, g.User)
		}
	}
	return out
}

// refresh reads the file again if it changed since the last reading and
// says which keys that took away. A missing file lists no key; a file
// that cannot be read lets nobody in until it can.
func (a *authorizedKeys) refresh() keyChanges {
	a.mu.Lock()
	defer a.mu.Unlock()
	info, err := os.Stat(a.path)
	if errors.Is(err, fs.ErrNotExist) {
		if a.read && a.seen == nil && a.usable {
			return keyChanges{}
		}
		a.logger.Warn("ssh: no authorized keys file: every login is refused", "file", a.path)
		return a.replaceLocked(nil, map[string]grant{})
	}
	if err == nil && a.read && a.usable && a.seen != nil && unchanged(a.seen, info) {
		return keyChanges{}
	}
	var grants map[string]grant
	if err == nil {
		grants, err = a.readLocked()
	}
	if err != nil {
		if a.usable || !a.read {
			a.logger.Warn("ssh: authorized keys unreadable: every login is refused", "file", a.path, "err", err)
		}
		a.read, a.usable = false, false
		return keyChanges{failed: true}
	}
	return a.replaceLocked(info, grants)
}

// readLocked parses the file, logging the lines it skips.
func (a *authorizedKeys) readLocked() (map[string]grant, error) {
	f, err := os.Open(a.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	grants, problems, err := parseAuthorizedKeys(f)
	for _, p := range problems {
		a.logger.Warn("ssh: authorized keys: line skipped", "file", a.path, "line", p.line, "err", p.err)
	}
	return grants, err
}

// replaceLocked makes grants the file's keys and returns what changed.
func (a *authorizedKeys) replaceLocked(info os.FileInfo, grants map[string]grant) keyChanges {
	var ch keyChanges
	for fp, old := range a.grants {
		now, ok := grants[fp]
		switch {
		case !ok:
			ch.gone = append(ch.gone, old.User)
		case now.Role != old.Role || now.options != old.options:
			ch.changed = append(ch.changed, old.User)
		}
	}
	a.grants, a.seen, a.read, a.usable = grants, info, true, true
	if info != nil {
		a.logger.Info("ssh: authorized keys loaded", "file", a.path, "users", len(grants))
	}
	return ch
}

// unchanged reports whether two readings of a file's metadata are of the
// same, unmodified file.
func unchanged(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// userName is the display name of a key: its comment, made safe for a
// terminal, else the start of its fingerprint.
func userName(comment, id string) string {
	if name := strings.TrimSpace(termtext.SanitizeLine(comment)); name != "" {
		return name
	}
	short := strings.TrimPrefix(id, "SHA256:")
	if len(short) > 12 {
		short = short[:12]
	}
	return "key " + short
}
