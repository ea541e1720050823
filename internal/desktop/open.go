package desktop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Open opens a URL or a file with the browser named by $BROWSER (a
// program run with the target as its one argument) or else the desktop's
// opener (xdg-open, open), without a shell.
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
		return fmt.Errorf("open %s with %s: %w", target, name, err)
	}
	return nil
}

// htmlGuard goes before an HTML body written for the browser: UTF-8 (the
// body was decoded to it) and a content security policy that lets the
// page load nothing from the network and run no script, so opening a mail
// neither tells its sender nor runs its code. Inline styles and data:
// images still show.
const htmlGuard = `<meta charset="utf-8">` +
	`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; form-action 'none'">` + "\n"

// WriteHTML writes an HTML body, guarded (see htmlGuard), to a new private
// file (0600) in the temporary directory and returns its path. The file
// stays for the browser to read; the system cleans the directory.
func WriteHTML(html string) (string, error) {
	f, err := os.CreateTemp("", "sandview-*.html")
	if err != nil {
		return "", fmt.Errorf("write the HTML body: %w", err)
	}
	_, werr := f.WriteString(htmlGuard + html)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write the HTML body to %s: %w", f.Name(), firstError(werr, cerr))
	}
	return f.Name(), nil
}

// OpenHTML writes an HTML body with WriteHTML and opens the file with
// open (Open, or a test's stand-in); it returns the file's path.
func OpenHTML(ctx context.Context, html string, open func(context.Context, string) error) (string, error) {
	path, err := WriteHTML(html)
	if err != nil {
		return "", err
	}
	if err := open(ctx, path); err != nil {
		return path, err
	}
	return path, nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
