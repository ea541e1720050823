package mail

import (
	"os"
	"path/filepath"
)

// Files are saved and opened through internal/desktop, as in the CLI.

// defaultSaveDir is where files are saved unless the user says otherwise.
func defaultSaveDir() string {
	if home, err := os.UserHomeDir(); err == nil {
		dl := filepath.Join(home, "Downloads")
		if info, err := os.Stat(dl); err == nil && info.IsDir() {
			return dl
		}
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "."
}
