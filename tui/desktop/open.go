package desktop

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Opener opens URLs and files with other programs.
type Opener struct {
	// Browser is the value of $BROWSER, which the command line reads: a
	// list of programs of which the first is used ("" for the desktop's
	// opener).
	Browser string
}

// Open opens a URL or a file with the browser named by Browser (a
// program run with the target as its one argument) or else the desktop's
// opener (xdg-open, open), without a shell. When that program is missing
// or fails, the error says the way out ($BROWSER, or copying the
// address) before the target, which may be long.
func (o Opener) Open(ctx context.Context, target string) error {
	if strings.HasPrefix(target, "-") {
		return fmt.Errorf("refusing to open %q", target)
	}
	name, args := "xdg-open", []string{target}
	switch {
	case o.Browser != "":
		name, _, _ = strings.Cut(o.Browser, string(os.PathListSeparator))
	case runtime.GOOS == "darwin":
		name = "open"
	case runtime.GOOS == "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", target}
	}
	if err := exec.CommandContext(ctx, name, args...).Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return &OpenError{Program: name, Target: target}
		}
		return &OpenError{Program: name, Err: err, Target: target}
	}
	return nil
}

// OpenError is an opener that was not found or failed.
type OpenError struct {
	Program string
	Err     error // how it failed (such as "exit status 3"); nil: not found
	Target  string
}

// Error says what failed, then the way out ($BROWSER, or copying the
// address), then the detail and the target, which may be long.
func (e *OpenError) Error() string {
	const wayOut = "set $BROWSER (e.g. BROWSER=firefox) or copy the address (y in sandview's reader)"
	if e.Err == nil {
		return fmt.Sprintf("%s not found: %s; could not open %s", e.Program, wayOut, e.Target)
	}
	return fmt.Sprintf("%s failed: %s (%v); could not open %s", e.Program, wayOut, e.Err, e.Target)
}

// Unwrap is how the program failed.
func (e *OpenError) Unwrap() error { return e.Err }

// Brief says it in a few words for a one-line status, the cause and the
// way out first: "xdg-open failed: y copies the link, or set $BROWSER
// (exit status 3)", copy being how to copy ("y copies the link").
func (e *OpenError) Brief(copy string) string {
	program := filepath.Base(e.Program)
	if e.Err == nil {
		return fmt.Sprintf("%s not found: %s, or set $BROWSER", program, copy)
	}
	return fmt.Sprintf("%s failed: %s, or set $BROWSER (%v)", program, copy, e.Err)
}
