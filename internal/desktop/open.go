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
