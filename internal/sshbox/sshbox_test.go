package sshbox

import (
	"crypto/ed25519"
	"crypto/rand"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func newKey(t *testing.T) gossh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func line(k gossh.PublicKey, comment string) string {
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k))) + " " + comment
}

func TestParseAuthorizedKeys(t *testing.T) {
	a, b, c := newKey(t), newKey(t), newKey(t)
	data := strings.Join([]string{
		"# the team",
		line(a, "alice@laptop"),
		"",
		"garbage here",
		`no-pty ` + line(b, "bob \x1b[31mred"),
		line(c, ""),
		"ssh-ed25519 AAAAnotbase64!!",
	}, "\n")
	users, problems, err := parseAuthorizedKeys(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 3 {
		t.Fatalf("users %v, want 3", users)
	}
	if u := users[gossh.FingerprintSHA256(a)]; u.Name != "alice@laptop" {
		t.Errorf("alice: %+v", u)
	}
	if u := users[gossh.FingerprintSHA256(b)]; strings.ContainsRune(u.Name, 0x1b) || !strings.HasPrefix(u.Name, "bob") {
		t.Errorf("bob's comment is not sanitized: %q", u.Name)
	}
	if u := users[gossh.FingerprintSHA256(c)]; !strings.HasPrefix(u.Name, "key ") {
		t.Errorf("a key without comment is named %q", u.Name)
	}
	if len(problems) != 2 || problems[0].line != 4 || problems[1].line != 7 {
		t.Fatalf("problems %+v, want lines 4 and 7", problems)
	}
}

func TestAuthorizedKeysAreReadAgainWhenTheFileChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authorized_keys")
	a, b := newKey(t), newKey(t)
	fa, fb := gossh.FingerprintSHA256(a), gossh.FingerprintSHA256(b)
	if err := os.WriteFile(path, []byte(line(a, "alice")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := &authorizedKeys{path: path, logger: slog.New(slog.DiscardHandler)}
	keys.refresh()
	if _, ok := keys.lookup(fa); !ok {
		t.Fatal("alice refused")
	}
	if _, ok := keys.lookup(fb); ok {
		t.Fatal("bob accepted before being added")
	}
	if err := os.WriteFile(path, []byte(line(b, "bob")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The same size and second as before must not hide the change: set
	// the time forward explicitly.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	ch := keys.refresh()
	if len(ch.gone) != 1 || ch.gone[0].ID != fa || len(ch.changed) != 0 {
		t.Fatalf("changes %+v, want alice gone", ch)
	}
	if _, ok := keys.lookup(fb); !ok {
		t.Fatal("bob refused after being added")
	}
	if _, ok := keys.lookup(fa); ok {
		t.Fatal("alice accepted after being removed")
	}
	if ch := keys.refresh(); len(ch.gone)+len(ch.changed) != 0 || ch.failed {
		t.Fatalf("an unchanged file changed: %+v", ch)
	}
	if err := os.WriteFile(path, []byte(`role="admin" `+line(b, "bob")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ch := keys.refresh(); len(ch.changed) != 1 || ch.changed[0].ID != fb {
		t.Fatalf("changes %+v, want bob changed", ch)
	}
	if g, _ := keys.lookup(fb); g.Role != RoleAdmin {
		t.Fatalf("bob's role %q", g.Role)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if ch := keys.refresh(); len(ch.gone) != 1 || ch.gone[0].ID != fb {
		t.Fatalf("changes %+v, want bob gone with the file", ch)
	}
	if _, ok := keys.lookup(fb); ok {
		t.Fatal("a key accepted after the file was removed")
	}
}

func TestLimiter(t *testing.T) {
	l := newLimiter(3, 2)
	r1, err := l.acquire("a")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := l.acquire("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.acquire("a"); err == nil || !strings.Contains(err.Error(), "per key") {
		t.Fatalf("a third session of one key: %v", err)
	}
	r3, err := l.acquire("b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.acquire("c"); err == nil || !strings.Contains(err.Error(), "its limit") {
		t.Fatalf("a session over the total: %v", err)
	}
	r1()
	r1() // twice is once
	if _, err := l.acquire("c"); err != nil {
		t.Fatalf("a freed slot is not given: %v", err)
	}
	idle := l.close()
	if _, err := l.acquire("d"); err == nil {
		t.Fatal("a session opened after close")
	}
	select {
	case <-idle:
		t.Fatal("idle with sessions open")
	default:
	}
	r2()
	r3()
	l.mu.Lock()
	open := l.total
	l.mu.Unlock()
	if open != 1 { // c's
		t.Fatalf("%d sessions counted, want 1", open)
	}
}

func TestHostKeyIsMadeOnceAndPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ssh", "host_ed25519")
	_, first, err := loadOrCreateHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("host key mode %v", info.Mode().Perm())
	}
	if dir, _ := os.Stat(filepath.Dir(path)); dir.Mode().Perm() != 0o700 {
		t.Fatalf("host key directory mode %v", dir.Mode().Perm())
	}
	_, again, err := loadOrCreateHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if gossh.FingerprintSHA256(first) != gossh.FingerprintSHA256(again) {
		t.Fatal("the host key changed between starts")
	}
	if err := os.WriteFile(path, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadOrCreateHostKey(path); err == nil {
		t.Fatal("a broken host key was accepted")
	}
}
