package desktop

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTempDirOpenHTML: the page is written under the given directory (a
// 0700 directory, the file 0600) behind the content security policy,
// handed to the opener, and removed once the opener has had it; nothing
// goes to $TMPDIR.
func TestTempDirOpenHTML(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := OpenedDir(t.TempDir())
	d := NewTempDir(dir, time.Millisecond)
	var page string
	opener := func(_ context.Context, target string) error {
		if filepath.Dir(target) != dir {
			t.Errorf("opened %s, want a file in %s", target, dir)
		}
		for path, want := range map[string]os.FileMode{target: 0o600, dir: 0o700} {
			if info, err := os.Stat(path); err != nil || info.Mode().Perm() != want {
				t.Errorf("%s: %v, mode %v; want %v", path, err, info.Mode().Perm(), want)
			}
		}
		data, err := os.ReadFile(target)
		page = string(data)
		return err
	}
	path, err := d.OpenHTML(context.Background(), "Re: ../../evil", `<img src="https://tracker.example/p.gif"><p>Grüße</p>`, opener)
	if err != nil || filepath.Base(path) != "evil.html" {
		t.Fatalf("OpenHTML: %q, %v", path, err)
	}
	if !strings.HasPrefix(page, `<html><head><meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;`) ||
		!strings.Contains(page, `<meta charset="utf-8"/></head><body><img src="https://tracker.example/p.gif"/><p>Grüße</p>`) {
		t.Fatalf("page %q: want the policy first in the head, then the body", page)
	}
	if err := d.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s still there after the grace: %v", path, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("%d files left in $TMPDIR", len(left))
	}
}

// TestTempDirKeepsTheFileForTheGraceThenRemove: within the grace the file
// is there for the browser; Remove (the program ending) deletes it at
// once, and Settle does not wait for it any more.
func TestTempDirKeepsTheFileForTheGraceThenRemove(t *testing.T) {
	d := NewTempDir(OpenedDir(t.TempDir()), time.Hour)
	path, err := d.Open(context.Background(), "a.pdf", []byte("%PDF"), func(context.Context, string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the file is gone within the grace: %v", err)
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s still there after Remove: %v", path, err)
	}
	if err := d.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestTempDirSettleInterrupted: an interrupted wait removes the files at
// once.
func TestTempDirSettleInterrupted(t *testing.T) {
	d := NewTempDir(OpenedDir(t.TempDir()), time.Hour)
	path, err := d.Open(context.Background(), "a.html", []byte("x"), func(context.Context, string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Settle(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Settle: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s still there: %v", path, err)
	}
}

// TestTempDirOpenerFailureRemovesTheFile: nothing is left when the opener
// fails.
func TestTempDirOpenerFailureRemovesTheFile(t *testing.T) {
	dir := OpenedDir(t.TempDir())
	d := NewTempDir(dir, time.Hour)
	failing := errors.New("no browser")
	if _, err := d.OpenHTML(context.Background(), "x", "<p>x</p>", func(context.Context, string) error { return failing }); !errors.Is(err, failing) {
		t.Fatalf("opener failure: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("%d files left after a failed open", len(left))
	}
}

// TestTempDirSweepsLeftovers: files older than SweepAge (of a run that was
// killed) go when a TempDir is made and when it writes; recent ones
// (another process's, still being read) stay.
func TestTempDirSweepsLeftovers(t *testing.T) {
	dir := OpenedDir(t.TempDir())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old, recent := filepath.Join(dir, "old.html"), filepath.Join(dir, "recent.html")
	for _, p := range []string{old, recent} {
		if err := os.WriteFile(p, []byte("decrypted"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-SweepAge - time.Minute)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	d := NewTempDir(dir, time.Hour)
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the leftover is still there at the start: %v", err)
	}
	// One left by a run killed while this one runs.
	if err := os.WriteFile(old, []byte("decrypted"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Write("new.html", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the leftover is still there after a write: %v", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Fatalf("a recent file was swept: %v", err)
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Fatalf("Remove deleted a file it did not write: %v", err)
	}
}

func TestTempDirWithoutDirectoryRefuses(t *testing.T) {
	if _, err := NewTempDir("", time.Second).Write("a", nil); err == nil {
		t.Fatal("a TempDir without a directory wrote a file")
	}
}
