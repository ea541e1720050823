//go:build !linux

package bolt

import "os"

// fdatasync writes the file to disk (fsync: fdatasync is Linux's).
func fdatasync(f *os.File) error { return f.Sync() }
