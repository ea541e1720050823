package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGendocs: the man pages (sandview.1, one page a command) and the
// completion scripts of bash, zsh and fish are written, dated by the date
// given, and a second run of the same date writes the same bytes.
func TestGendocs(t *testing.T) {
	if err := run([]string{t.TempDir()}); err == nil {
		t.Fatal("gendocs without a date did not fail")
	}
	if err := run([]string{t.TempDir(), "yesterday"}); err == nil || !strings.Contains(err.Error(), "date") {
		t.Fatalf("gendocs with a bad date: %v", err)
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		if err := run([]string{dir, "2026-01-02T15:04:05+02:00"}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"man/sandview.1":            `.TH "SANDVIEW" "1" "Jan 2026" "sandview" "sandview manual"`,
		"man/sandview-email-list.1": "sandview email list",
		"man/sandview-serve.1":      "sandview serve",
		"man/sandview-wait.1":       "sandview wait",
		"completions/sandview.bash": "__start_sandview",
		"completions/_sandview":     "#compdef sandview",
		"completions/sandview.fish": "complete -c sandview",
	}
	for name, text := range want {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(a), text) {
			t.Errorf("%s has no %q", name, text)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of the same date (%v)", name, err)
		}
	}
}
