package sshbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"sandview/internal/termtext"

	gossh "golang.org/x/crypto/ssh"
)

// User is one SSH user of the box: one authorized public key.
type User struct {
	// ID is the key's SHA256 fingerprint ("SHA256:…"): what the user's
	// state is kept under.
	ID string
	// Name is the key's comment (sanitized), else a short fingerprint.
	Name string
}

// authorizedKeys is the authorized_keys file, read again whenever its size
// or modification time changes (checked at each login).
type authorizedKeys struct {
	path   string
	logger *slog.Logger

	mu      sync.Mutex
	modTime time.Time
	size    int64
	loaded  bool
	users   map[string]User // by fingerprint
}

// lookup returns the user of key, reading the file again if it changed.
func (a *authorizedKeys) lookup(key gossh.PublicKey) (User, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshLocked()
	u, ok := a.users[gossh.FingerprintSHA256(key)]
	return u, ok
}

// refreshLocked reads the file when it changed since the last read; a file
// that cannot be read leaves no user authorized.
func (a *authorizedKeys) refreshLocked() {
	info, err := os.Stat(a.path)
	if err != nil {
		if a.loaded || a.users == nil {
			a.logger.Warn("ssh: no authorized keys: every login is refused", "file", a.path, "err", err)
		}
		a.users, a.loaded = map[string]User{}, false
		return
	}
	if a.loaded && info.ModTime().Equal(a.modTime) && info.Size() == a.size {
		return
	}
	data, err := os.ReadFile(a.path)
	if err != nil {
		a.logger.Warn("ssh: read authorized keys: every login is refused", "file", a.path, "err", err)
		a.users, a.loaded = map[string]User{}, false
		return
	}
	users, problems := parseAuthorizedKeys(data)
	for _, p := range problems {
		a.logger.Warn("ssh: authorized keys: line skipped", "file", a.path, "line", p.line, "err", p.err)
	}
	a.users, a.loaded, a.modTime, a.size = users, true, info.ModTime(), info.Size()
	a.logger.Info("ssh: authorized keys loaded", "file", a.path, "users", len(users))
}

// lineProblem is a line of an authorized_keys file that does not parse.
type lineProblem struct {
	line int
	err  error
}

// parseAuthorizedKeys reads the OpenSSH authorized_keys format: one key a
// line, blank lines and # comments skipped; options before the key are
// accepted and ignored. A line that does not parse is reported by number
// and the others still load.
func parseAuthorizedKeys(data []byte) (map[string]User, []lineProblem) {
	users := map[string]User{}
	var problems []lineProblem
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, comment, _, rest, err := gossh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			problems = append(problems, lineProblem{n, fmt.Errorf("not a public key: %w", err)})
			continue
		}
		if len(bytes.TrimSpace(rest)) > 0 {
			problems = append(problems, lineProblem{n, errors.New("more than one key on the line")})
			continue
		}
		id := gossh.FingerprintSHA256(key)
		users[id] = User{ID: id, Name: userName(comment, id)}
	}
	if err := sc.Err(); err != nil {
		problems = append(problems, lineProblem{0, fmt.Errorf("read: %w", err)})
	}
	return users, problems
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
