// Package securefile writes files that hold secrets (API keys, signing
// keys, exported inboxes, the config file): mode 0600 in a 0700
// directory, replaced atomically so a reader sees the old content or the
// new one, never a mix.
package securefile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to path: a temporary file in the same directory (mode
// 0600), fsync, rename over path, then fsync of the directory. A missing
// directory is created with mode 0700 (parents too); an existing one is
// left as it is. On failure path keeps its old content and no temporary
// file is left behind.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: create directory: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file 0600 already; Chmod states it and does not
	// depend on that.
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed = true
	// Persist the rename. Not every platform can sync a directory, and the
	// data itself is on disk already, so a failure here is not reported.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// PrivateDir makes sure dir exists with mode 0700: it is created (parents
// too, 0700) when missing, and an existing one is made 0700. For
// directories that only sandview uses, such as the one for decrypted files
// handed to other programs.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if info.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make %s private: %w", dir, err)
		}
	}
	return nil
}
