package keystore_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/keystore"
	"sandview/crypto"
	"sandview/model"
)

func TestDir(t *testing.T) {
	for url, want := range map[string]string{
		"http://127.0.0.1:8025":         "127.0.0.1_8025",
		"https://sandbox.example.com":   "sandbox.example.com_443",
		"http://[::1]:9000/":            "__1_9000",
		"https://host/prefix/api":       "host_443_prefix_api",
		"http://Sandbox.Example.org:80": "Sandbox.Example.org_80",
	} {
		if got := keystore.Dir("/h", url); got != filepath.Join("/h", "inboxes", want) {
			t.Errorf("%s: %s, want %s", url, got, want)
		}
	}
}

// storedExport is valid export data of an encrypted inbox with fresh keys.
func storedExport(t *testing.T, address string, expires time.Time) model.ExportedInbox {
	t.Helper()
	kp, err := crypto.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	server, err := crypto.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	return model.ExportedInbox{
		Version:      model.ExportVersion,
		EmailAddress: address,
		ExpiresAt:    expires.UTC().Format(time.RFC3339),
		InboxHash:    crypto.InboxHash(kp.PublicKey),
		Encrypted:    true,
		SecretKey:    crypto.EncodeBase64URL(kp.SecretKey),
		ServerSigPk:  crypto.EncodeBase64URL(server.PublicKey()),
		ExportedAt:   time.Now().UTC().Format(time.RFC3339),
	}
}

func TestKeystoreSaveLoadRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "inboxes", "127.0.0.1_8025")
	ks, err := keystore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing is created before something is saved.
	if _, err := os.Stat(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Fatalf("Open created %s: %v", filepath.Dir(dir), err)
	}
	if stored, err := ks.Load(); err != nil || len(stored) != 0 {
		t.Fatalf("an absent keystore loads %v, %v", stored, err)
	}
	live := storedExport(t, "Live@Sandbox.test", time.Now().Add(time.Hour))
	old := storedExport(t, "old@sandbox.test", time.Now().Add(-time.Hour))
	for _, d := range []model.ExportedInbox{live, old} {
		if err := ks.Save(d); err != nil {
			t.Fatal(err)
		}
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v %v", info.Mode().Perm(), err)
	}
	if !ks.Has("LIVE@sandbox.test") || ks.Has("nobody@sandbox.test") {
		t.Fatal("Has does not match the saved files")
	}
	// Saving again replaces the file.
	if err := ks.Save(live); err != nil {
		t.Fatal(err)
	}
	// A bad file is reported and skipped; the good ones still load.
	bad := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(bad, []byte(`{"version":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stored, err := ks.Load()
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), client.ErrCodeUnsupportedVersion) {
		t.Fatalf("bad file not reported: %v", err)
	}
	if len(stored) != 2 {
		t.Fatalf("%d inboxes loaded", len(stored))
	}
	byAddr := map[string]keystore.Entry{}
	for _, s := range stored {
		byAddr[s.Data.EmailAddress] = s
		info, err := os.Stat(s.Path)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("%s mode %v %v", s.Path, info.Mode().Perm(), err)
		}
	}
	if s := byAddr["Live@Sandbox.test"]; s.Expired || s.Data.SecretKey != live.SecretKey || s.Path != ks.Path("live@sandbox.test") {
		t.Fatalf("live inbox %+v", s.Path)
	}
	if !byAddr["old@sandbox.test"].Expired {
		t.Fatal("expired inbox not marked")
	}
	// Load tightens a file that others can read.
	if info, _ := os.Stat(bad); info.Mode().Perm() != 0o600 {
		t.Fatalf("loose file left at %v", info.Mode().Perm())
	}
	if err := ks.Remove("LIVE@sandbox.test"); err != nil {
		t.Fatal(err)
	}
	if err := ks.Remove("LIVE@sandbox.test"); err != nil {
		t.Fatalf("second remove: %v", err)
	}
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	stored, err = ks.Load()
	if err != nil || len(stored) != 1 || stored[0].Data.EmailAddress != "old@sandbox.test" {
		t.Fatalf("after remove: %v %v", stored, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Fatalf("temp file left: %s", e.Name())
		}
	}
}

func TestKeystoreFixesDirPermsAndOddAddresses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ks, err := keystore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", info.Mode().Perm())
	}
	a, b := "../../etc/x@y", "..__etc_x@y"
	if ks.Path(a) == ks.Path(b) || filepath.Dir(ks.Path(a)) != dir || filepath.Dir(ks.Path(".hidden@y")) != dir {
		t.Fatalf("unsafe or colliding names: %s %s", ks.Path(a), ks.Path(b))
	}
	if strings.HasPrefix(filepath.Base(ks.Path(".hidden@y")), ".") {
		t.Fatal("a dot file would be skipped by Load")
	}
}

func TestConfigRoundTrip(t *testing.T) {
	home := filepath.Join(t.TempDir(), "sandview")
	c, err := keystore.LoadConfig(home)
	if err != nil || c != (keystore.Config{}) {
		t.Fatalf("missing config: %+v %v", c, err)
	}
	want := keystore.Config{URL: "http://127.0.0.1:8025", APIKey: "secret-key"}
	if err := keystore.SaveConfig(home, want); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, keystore.ConfigFileName)
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v %v", info.Mode().Perm(), err)
	}
	if info, _ := os.Stat(home); info.Mode().Perm() != 0o700 {
		t.Fatalf("home mode %v", info.Mode().Perm())
	}
	var raw map[string]string
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &raw); err != nil || raw["url"] != want.URL || raw["apiKey"] != want.APIKey {
		t.Fatalf("file %s", data)
	}
	got, err := keystore.LoadConfig(home)
	if err != nil || got != want {
		t.Fatalf("loaded %+v %v", got, err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := keystore.LoadConfig(home); err == nil {
		t.Fatal("broken config accepted")
	}
}

// TestWatcherSeesSavesAndRemovals checks that a watcher reports a save and
// a removal by another program once each, and nothing in between.
func TestWatcherSeesSavesAndRemovals(t *testing.T) {
	ks, err := keystore.Open(filepath.Join(t.TempDir(), "inboxes", "h_1"))
	if err != nil {
		t.Fatal(err)
	}
	w := ks.Watch()
	if changed, err := w.Changed(); changed || err != nil {
		t.Fatalf("an untouched keystore changed: %v %v", changed, err)
	}
	other, err := keystore.Open(ks.Dir()) // the CLI, in another process
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Save(storedExport(t, "qa-run-17@sandbox.test", time.Now().Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	if changed, err := w.Changed(); !changed || err != nil {
		t.Fatalf("a save was not seen: %v %v", changed, err)
	}
	if changed, _ := w.Changed(); changed {
		t.Fatal("a save was seen twice")
	}
	if err := os.WriteFile(filepath.Join(ks.Dir(), ".tmp-123"), []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	if changed, _ := w.Changed(); changed {
		t.Fatal("a temporary file counted as a change")
	}
	if err := other.Remove("qa-run-17@sandbox.test"); err != nil {
		t.Fatal(err)
	}
	if changed, _ := w.Changed(); !changed {
		t.Fatal("a removal was not seen")
	}
}
