package desktop

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"sandview/client/securefile"
)

// How long files handed to other programs stay.
const (
	// DefaultGrace is how long an opened file stays after the program that
	// opened it (xdg-open, open, $BROWSER) has ended: the time a browser
	// or viewer that was handed the file takes to read it.
	DefaultGrace = 10 * time.Second
	// SweepAge: a file older than this in the directory is a leftover of a
	// program that ended before its removal (killed, crashed); it is
	// removed when a TempDir of the directory is made and whenever one
	// writes a file.
	SweepAge = 10 * time.Minute
)

// OpenedDir is the directory under the state directory (home) for the
// decrypted files handed to other programs.
func OpenedDir(home string) string { return filepath.Join(home, "opened") }

// TempDir holds the decrypted files handed to other programs (HTML bodies
// for the browser, attachments for their viewers), so that nothing
// decrypted is left outside the state directory: files 0600 in a private
// directory (0700, see OpenedDir), each removed Grace after the program
// that opened it ended, the rest by Remove, and leftovers of earlier runs
// older than SweepAge when the TempDir is made (the TUI's start, `email
// open`) and whenever it writes a file. Several processes
// may share the directory: each removes only its own files (and the
// leftovers). It is safe for concurrent use.
type TempDir struct {
	dir   string
	grace time.Duration

	mu      sync.Mutex
	files   map[string]*time.Timer // written, not removed yet; the timer once opened
	pending sync.WaitGroup         // scheduled removals
}

// NewTempDir returns the TempDir of dir (made on first use) whose opened
// files are removed grace after their opener ended. It sweeps the
// leftovers of earlier runs.
func NewTempDir(dir string, grace time.Duration) *TempDir {
	if dir != "" {
		sweep(dir, time.Now().Add(-SweepAge))
	}
	return &TempDir{dir: dir, grace: grace, files: map[string]*time.Timer{}}
}

// Write saves data under the safe form of name (see SafeName), never
// overwriting, and returns its path. The file stays until Remove.
func (d *TempDir) Write(name string, data []byte) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dir == "" {
		return "", errors.New("no private directory for opened files is set")
	}
	if err := securefile.PrivateDir(d.dir); err != nil {
		return "", err
	}
	sweep(d.dir, time.Now().Add(-SweepAge))
	path, err := SaveUnique(d.dir, name, "file", data, 0o600)
	if err != nil {
		return "", err
	}
	d.files[path] = nil
	return path, nil
}

// Open saves data as Write does, opens it with open (Open, or a test's
// stand-in) and schedules its removal Grace after open returned (at once
// when open failed). It returns the file's path.
func (d *TempDir) Open(ctx context.Context, name string, data []byte, open func(context.Context, string) error) (string, error) {
	path, err := d.Write(name, data)
	if err != nil {
		return "", err
	}
	if err := open(ctx, path); err != nil {
		d.mu.Lock()
		d.removeLocked(path)
		d.mu.Unlock()
		return "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.files[path]; ok { // not removed by Remove meanwhile
		d.pending.Add(1)
		d.files[path] = time.AfterFunc(d.grace, func() {
			defer d.pending.Done()
			d.mu.Lock()
			defer d.mu.Unlock()
			d.removeLocked(path)
		})
	}
	return path, nil
}

// OpenHTML opens an HTML body, made a BrowserPage (remote content
// blocked), as Open does, in a file named after name (".html" added).
func (d *TempDir) OpenHTML(ctx context.Context, name, body string, open func(context.Context, string) error) (string, error) {
	page, err := BrowserPage(body)
	if err != nil {
		return "", err
	}
	return d.Open(ctx, SafeName(name, "message")+".html", []byte(page), open)
}

// Settle waits until the files opened so far are removed (Grace after
// their openers ended). When ctx ends first it removes them at once and
// returns ctx's error.
func (d *TempDir) Settle(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		d.pending.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return errors.Join(ctx.Err(), d.Remove())
	}
}

// Remove deletes, at once, every file d wrote that is still there.
func (d *TempDir) Remove() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for path := range d.files {
		errs = append(errs, d.removeLocked(path))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove the opened files: %w", err)
	}
	return nil
}

// removeLocked deletes one file of d and stops its removal timer; d.mu is
// held.
func (d *TempDir) removeLocked(path string) error {
	timer, ok := d.files[path]
	if !ok {
		return nil
	}
	delete(d.files, path)
	if timer != nil && timer.Stop() {
		d.pending.Done()
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// sweep removes the regular files of dir last changed before cutoff
// (leftovers of earlier runs); failures are ignored: the next sweep tries
// again.
func sweep(dir string, cutoff time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(cutoff) {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}
