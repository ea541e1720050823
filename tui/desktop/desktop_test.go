package desktop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSafeName(t *testing.T) {
	cases := map[string]string{
		"../../etc/passwd":                "passwd",
		`C:\Windows\evil.exe`:             "evil.exe",
		"report.pdf":                      "report.pdf",
		"":                                "attachment",
		"..":                              "attachment",
		".bashrc":                         "bashrc",
		"a\x1b[2Jb\u202e.txt":             "ab.txt",
		"what?<>|*.txt":                   "what_____.txt",
		" .hidden. ":                      "hidden",
		strings.Repeat("é", 300) + ".pdf": strings.Repeat("é", 98) + ".pdf",
	}
	for in, want := range cases {
		if got := SafeName(in, "attachment"); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSaveUniqueNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	p1, err := SaveUnique(dir, "../a.txt", "x", []byte("one"), 0o644)
	if err != nil || filepath.Base(p1) != "a (1).txt" {
		t.Fatalf("first: %s %v", p1, err)
	}
	p2, err := SaveUnique(dir, "a.txt", "x", []byte("two"), 0o644)
	if err != nil || filepath.Base(p2) != "a (2).txt" {
		t.Fatalf("second: %s %v", p2, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "keep" {
		t.Fatal("existing file overwritten")
	}
	if data, _ := os.ReadFile(p2); string(data) != "two" {
		t.Fatalf("saved %q", data)
	}
	if _, err := SaveUnique(filepath.Join(dir, "a.txt"), "b", "x", nil, 0o644); err == nil {
		t.Fatal("saving into a file did not fail")
	}
}

func TestOpenUsesBROWSER(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+marker+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	o := Opener{Browser: script}
	if err := o.Open(context.Background(), "https://example.org/x"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(marker); string(got) != "https://example.org/x" {
		t.Fatalf("the browser got %q", got)
	}
	if err := o.Open(context.Background(), "-rf"); err == nil {
		t.Fatal("a target starting with - was opened")
	}
}

// TestOpenWithoutOpenerSaysTheWayOut: with no opener, the error names it
// and points to $BROWSER and to copying the link with y.
func TestOpenWithoutOpenerSaysTheWayOut(t *testing.T) {
	err := Opener{Browser: filepath.Join(t.TempDir(), "no-such-browser")}.Open(context.Background(), "https://acme-shop.example/p/1")
	if err == nil {
		t.Fatal("opening with a missing browser did not fail")
	}
	for _, want := range []string{"https://acme-shop.example/p/1", "no-such-browser not found", "$BROWSER", "copy the address (y in sandview's reader)"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("the error %q does not say %q", err, want)
		}
	}
	failing := Opener{Browser: "false"} // found, but fails
	err = failing.Open(context.Background(), "https://acme-shop.example/p/1")
	if err == nil || !strings.HasPrefix(err.Error(), "false failed: set $BROWSER") {
		t.Fatalf("a failing browser: %v", err)
	}
	var open *OpenError
	if !errors.As(err, &open) {
		t.Fatalf("%T is no *OpenError", err)
	}
	if got, want := open.Brief("y copies the link"), "false failed: y copies the link, or set $BROWSER (exit status 1)"; got != want {
		t.Fatalf("Brief = %q, want %q", got, want)
	}
	t.Setenv("PATH", t.TempDir()) // no xdg-open
	if err := (Opener{}).Open(context.Background(), "https://acme-shop.example/p/1"); err == nil || !strings.Contains(err.Error(), "$BROWSER") {
		t.Fatalf("without xdg-open: %v", err)
	}
}

// TestSaveUniqueCreatesTheDirectory: a missing directory is made, with
// its parents, private.
func TestSaveUniqueCreatesTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	path, err := SaveUnique(dir, "a.txt", "x", []byte("one"), 0o644)
	if err != nil || path != filepath.Join(dir, "a.txt") {
		t.Fatalf("save: %s %v", path, err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if info, err := os.Stat(d); err != nil || info.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v, mode %v; want 0700", d, err, info.Mode().Perm())
		}
	}
}

// TestSavedFilesAreTheUsers: a saved email or attachment is decrypted
// mail: it is written 0600 whatever mode the caller asked for.
func TestSavedFilesAreTheUsers(t *testing.T) {
	dir := t.TempDir()
	for _, perm := range []os.FileMode{0o644, 0o666, 0o600} {
		path, err := SaveUnique(dir, "mail.eml", "x", []byte("decrypted"), perm)
		if err != nil {
			t.Fatal(err)
		}
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("asked %v: %v, mode %v; want 0600", perm, err, info.Mode().Perm())
		}
	}
}
