// Package desktop hands mail content to the user's desktop, for the CLI
// and the TUI alike: attachments and messages saved under safe file names
// that never overwrite a file, and links, files and HTML bodies opened in
// the browser (HTML from a private file, with remote content blocked).
package desktop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sandview/model/termtext"
)

// maxNameBytes bounds a saved file name (most file systems allow 255).
const maxNameBytes = 200

// SafeName turns an untrusted file name into a plain base name: path
// parts are stripped, control and reserved characters removed, leading and
// trailing dots and spaces trimmed (no hidden files), and an empty result
// replaced by fallback.
func SafeName(name, fallback string) string {
	name = termtext.SanitizeLine(name)
	name = strings.ReplaceAll(name, "\\", "/")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', ':', '"', '|', '?', '*', 0:
			return '_'
		}
		return r
	}, name)
	name = strings.Trim(name, " .")
	if name == "" {
		name = fallback
	}
	if len(name) > maxNameBytes {
		ext := filepath.Ext(name)
		if len(ext) > 20 {
			ext = ""
		}
		cut := maxNameBytes - len(ext)
		for cut > 0 && !validCut(name, cut) {
			cut--
		}
		name = name[:cut] + ext
	}
	return name
}

// validCut reports whether s can be cut at byte i without splitting a rune.
func validCut(s string, i int) bool {
	return i == len(s) || s[i]&0xC0 != 0x80
}

// SaveUnique writes data to dir under the safe form of name (see
// SafeName) with the permissions perm less any for group and others (what
// is saved is decrypted mail: the file is the user's alone), adding
// " (1)", " (2)", ... before the extension instead of overwriting a file,
// and returns the path written. A missing dir is created, private (0700),
// with its parents.
func SaveUnique(dir, name, fallback string, data []byte, perm os.FileMode) (string, error) {
	perm &^= 0o077
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("save to %s: %w", dir, err)
		}
		info, err = os.Stat(dir)
	}
	if err != nil {
		return "", fmt.Errorf("save to %s: %w", dir, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("save to %s: not a directory", dir)
	}
	base := SafeName(name, fallback)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for n := 0; n < 10000; n++ {
		candidate := base
		if n > 0 {
			candidate = fmt.Sprintf("%s (%d)%s", stem, n, ext)
		}
		path := filepath.Join(dir, candidate)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("save %s: %w", path, err)
		}
		_, werr := f.Write(data)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			_ = os.Remove(path)
			return "", fmt.Errorf("save %s: %w", path, errors.Join(werr, cerr))
		}
		return path, nil
	}
	return "", fmt.Errorf("save to %s: too many files named like %s", dir, base)
}
