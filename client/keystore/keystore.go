// Package keystore keeps what sandview remembers between runs, under its
// home directory (which the command line decides): the config file (server URL and API key) and, per
// server, the inboxes a user works with, one export file each with its
// secret key. Files are 0600 in 0700 directories, written atomically. A
// Watcher tells a running program cheaply when another one (the CLI)
// saved or removed an inbox.
package keystore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"sandview/client"
	"sandview/client/securefile"
	"sandview/model"
)

// Dir returns the keystore directory for one server:
// home/inboxes/<host_port>, plus the URL path when there is one, with every
// character outside [A-Za-z0-9.-] replaced by '_'.
func Dir(home, baseURL string) string {
	name := baseURL
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		port := u.Port()
		if port == "" {
			port = map[string]string{"https": "443"}[u.Scheme]
			if port == "" {
				port = "80"
			}
		}
		name = u.Hostname() + "_" + port
		if p := strings.Trim(u.Path, "/"); p != "" {
			name += "_" + p
		}
	}
	return filepath.Join(home, "inboxes", sanitizeName(name))
}

// sanitizeName keeps [A-Za-z0-9.-] and replaces everything else with '_';
// a name of only dots becomes underscores too.
func sanitizeName(s string) string {
	out := []byte(s)
	for k, ch := range out {
		ok := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '-'
		if !ok {
			out[k] = '_'
		}
	}
	name := string(out)
	if strings.Trim(name, ".") == "" {
		name = strings.Repeat("_", max(len(name), 1))
	}
	return name
}

// Store keeps the inboxes a user works with on one server across runs:
// one export file per inbox in a 0700 directory, each file 0600, written
// atomically.
type Store struct {
	dir string
}

// Entry is one inbox read from the keystore.
type Entry struct {
	Data model.ExportedInbox
	Path string
	// Expired is true when the inbox's expiresAt has passed.
	Expired bool
}

// Open opens the keystore directory, making sure an existing one is 0700.
// A missing directory is not created: the first Save creates it (0700),
// so that a command that saves nothing leaves nothing behind.
func Open(dir string) (*Store, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return &Store{dir: dir}, nil
	}
	if err := securefile.PrivateDir(dir); err != nil {
		return nil, fmt.Errorf("open keystore: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Dir returns the keystore directory.
func (k *Store) Dir() string { return k.dir }

// fileName is the keystore file of an address: the lowercased address when
// every character is safe in a file name, else a sanitized form plus a
// short hash, so that distinct addresses never share a file.
func fileName(address string) string {
	lower := strings.ToLower(address)
	safe := []byte(lower)
	changed := false
	for k, ch := range safe {
		if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || strings.IndexByte(".@+_-", ch) >= 0) {
			safe[k] = '_'
			changed = true
		}
	}
	if !changed && !strings.HasPrefix(lower, ".") {
		return lower + ".json"
	}
	sum := sha256.Sum256([]byte(lower))
	return "_" + string(safe) + "-" + hex.EncodeToString(sum[:4]) + ".json"
}

// Path returns the file that holds (or would hold) the inbox with the
// address.
func (k *Store) Path(address string) string {
	return filepath.Join(k.dir, fileName(address))
}

// Save writes the inbox's export file (0600, atomic), replacing an older
// one of the same address; a missing keystore directory is created (0700).
func (k *Store) Save(d model.ExportedInbox) error {
	if err := client.SaveExport(k.Path(d.EmailAddress), d); err != nil {
		return fmt.Errorf("save inbox %s: %w", d.EmailAddress, err)
	}
	return nil
}

// Load reads every stored inbox, in file-name order. A file that cannot be
// read or fails import validation is reported in the returned error (with
// its path) and skipped; the good ones are still returned. Files readable
// by others are tightened to 0600. A keystore with no directory yet is
// empty.
func (k *Store) Load() ([]Entry, error) {
	entries, err := os.ReadDir(k.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read keystore %s: %w", k.dir, err)
	}
	now := time.Now()
	var out []Entry
	var errs []error
	for _, entry := range entries {
		name := entry.Name()
		if entry.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		path := filepath.Join(k.dir, name)
		stored, err := loadEntry(path, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("keystore file %s: %w", path, err))
			continue
		}
		out = append(out, stored)
	}
	return out, errors.Join(errs...)
}

func loadEntry(path string, now time.Time) (Entry, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return Entry{}, err
	}
	if !info.Mode().IsRegular() {
		return Entry{}, errors.New("not a regular file")
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return Entry{}, fmt.Errorf("make private: %w", err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Entry{}, err
	}
	d, err := client.ValidateExport(data)
	if err != nil {
		return Entry{}, err
	}
	expires, _ := client.ParseTimestamp(d.ExpiresAt) // validated
	return Entry{Data: d, Path: path, Expired: !now.Before(expires)}, nil
}

// Has reports whether the keystore holds a file for the address.
func (k *Store) Has(address string) bool {
	_, err := os.Lstat(k.Path(address))
	return err == nil
}

// Remove deletes the inbox's file; a missing file is not an error.
func (k *Store) Remove(address string) error {
	err := os.Remove(k.Path(address))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove inbox %s from the keystore: %w", address, err)
	}
	return nil
}

// Watcher notices changes to a keystore directory cheaply: one directory
// read and a stat of each file (names, sizes, modification times), no file
// contents. Poll it now and then; Load when it says the files changed. It
// is safe for concurrent use.
type Watcher struct {
	k    *Store
	mu   sync.Mutex
	last string // the signature of the files at the last look
}

// Watch returns a watcher that takes the files as they are now as seen.
func (k *Store) Watch() *Watcher {
	w := &Watcher{k: k}
	w.last, _ = k.signature()
	return w
}

// Changed reports whether the keystore's files changed since the last
// call (or since Watch).
func (w *Watcher) Changed() (bool, error) {
	sig, err := w.k.signature()
	if err != nil {
		return false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := sig != w.last
	w.last = sig
	return changed, nil
}

// signature describes the keystore files: name, size and modification
// time of each, in name order.
func (k *Store) signature() (string, error) {
	entries, err := os.ReadDir(k.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read keystore %s: %w", k.dir, err)
	}
	var b strings.Builder
	for _, entry := range entries {
		name := entry.Name()
		if entry.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		info, err := entry.Info()
		if err != nil {
			continue // removed meanwhile: the next look sees it gone
		}
		fmt.Fprintf(&b, "%s\x00%d\x00%d\n", name, info.Size(), info.ModTime().UnixNano())
	}
	return b.String(), nil
}
