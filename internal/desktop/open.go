package desktop

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
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
		const wayOut = "set $BROWSER (e.g. BROWSER=firefox) or copy the address (y in sandview's reader)"
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s not found: %s; could not open %s", name, wayOut, target)
		}
		return fmt.Errorf("%s failed (%w): %s; could not open %s", name, err, wayOut, target)
	}
	return nil
}
