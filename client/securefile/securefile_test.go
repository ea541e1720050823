package securefile_test

import (
	"os"
	"path/filepath"
	"testing"

	"sandview/client/securefile"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteCreatesPrivateDirAndFile(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	path := filepath.Join(dir, "secret")
	if err := securefile.Write(path, []byte("key-1\n")); err != nil {
		t.Fatal(err)
	}
	if got := mode(t, path); got != 0o600 {
		t.Fatalf("file mode %o, want 600", got)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if got := mode(t, d); got != 0o700 {
			t.Fatalf("%s: mode %o, want 700", d, got)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "key-1\n" {
		t.Fatalf("read back %q, %v", data, err)
	}
}

func TestWriteReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secret")
	// An older file readable by others: the new content arrives as a new
	// file, so it is 0600 whatever the old mode was.
	if err := os.WriteFile(path, []byte("old content that is longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := securefile.Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "new" {
		t.Fatalf("read back %q, %v", data, err)
	}
	if got := mode(t, path); got != 0o600 {
		t.Fatalf("file mode %o after replace, want 600", got)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "secret" {
		t.Fatalf("directory holds %v, want only the file", names)
	}
}

func TestFailedWriteKeepsTheOldContentAndLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	// The target is a non-empty directory: the rename fails.
	path := filepath.Join(dir, "target")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := securefile.Write(path, []byte("x")); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "target" {
		t.Fatalf("directory holds %v after a failed write", names)
	}
	if _, err := os.Stat(filepath.Join(path, "inside")); err != nil {
		t.Fatalf("the old target changed: %v", err)
	}
}

func TestPrivateDirCreatesOrTightensTo0700(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "x", "opened")
	if err := securefile.PrivateDir(fresh); err != nil {
		t.Fatal(err)
	}
	if got := mode(t, fresh); got != 0o700 {
		t.Fatalf("new directory mode %o, want 700", got)
	}
	loose := filepath.Join(root, "loose")
	if err := os.Mkdir(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := securefile.PrivateDir(loose); err != nil {
		t.Fatal(err)
	}
	if got := mode(t, loose); got != 0o700 {
		t.Fatalf("existing directory mode %o, want 700", got)
	}
}
