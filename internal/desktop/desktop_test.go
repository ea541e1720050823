package desktop

import (
	"context"
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
	t.Setenv("BROWSER", script)
	if err := Open(context.Background(), "https://example.org/x"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(marker); string(got) != "https://example.org/x" {
		t.Fatalf("the browser got %q", got)
	}
	if err := Open(context.Background(), "-rf"); err == nil {
		t.Fatal("a target starting with - was opened")
	}
}
