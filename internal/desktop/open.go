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

// Open opens a URL or a file with the browser named by $BROWSER (a
// program run with the target as its one argument) or else the desktop's
// opener (xdg-open, open), without a shell. When that program is missing
// or fails, the error says the way out ($BROWSER, or copying the
// address) before the target, which may be long.
func Open(ctx context.Context, target string) error {
	if strings.HasPrefix(target, "-") {
		return fmt.Errorf("refusing to open %q", target)
	}
	name, args := "xdg-open", []string{target}
	switch {
	case os.Getenv("BROWSER") != "":
		name, _, _ = strings.Cut(os.Getenv("BROWSER"), string(os.PathListSeparator))
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

// writeHTML writes an HTML body as a BrowserPage to a new private file
// (0600) in the temporary directory and returns its path. The file stays
// for the browser to read after a short-lived program (the CLI) ends; the
// system cleans the directory.
func writeHTML(body string) (string, error) {
	page, err := BrowserPage(body)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp("", "sandview-*.html")
	if err != nil {
		return "", fmt.Errorf("write the HTML body: %w", err)
	}
	_, werr := f.WriteString(page)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write the HTML body to %s: %w", f.Name(), errors.Join(werr, cerr))
	}
	return f.Name(), nil
}

// OpenHTML writes an HTML body with writeHTML and opens the file with
// open (Open, or a test's stand-in); it returns the file's path.
func OpenHTML(ctx context.Context, body string, open func(context.Context, string) error) (string, error) {
	path, err := writeHTML(body)
	if err != nil {
		return "", err
	}
	if err := open(ctx, path); err != nil {
		return path, err
	}
	return path, nil
}
