package bolt

import (
	"os"

	"golang.org/x/sys/unix"
)

// fdatasync writes the file's data, and only the metadata needed to read
// it, to disk.
func fdatasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }
