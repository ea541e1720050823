package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeTakesSettingsFromTheEnvironment runs `sandview serve` on free
// ports with SVC_* variables, waits for its banner and stops it with
// SIGTERM.
func TestServeTakesSettingsFromTheEnvironment(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tt := range []struct {
		env, want string
	}{
		{"SVC_SIGN_AT_INGEST=true", "signing   every payload before SMTP answers"},
		{"SVC_SIGN_AT_INGEST=false", "signing   parsed and raw payloads just after SMTP answers"},
	} {
		t.Run(tt.env, func(t *testing.T) {
			cmd := exec.CommandContext(ctx, builtBinary, "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0")
			cmd.Env = append(os.Environ(), "SVC_API_KEY=env-key", "SVC_DATA="+t.TempDir(), tt.env)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var banner []string
			lines := bufio.NewScanner(stdout)
			for lines.Scan() {
				banner = append(banner, lines.Text())
				if strings.HasPrefix(strings.TrimSpace(lines.Text()), "signing") {
					break
				}
			}
			text := strings.Join(banner, "\n")
			if !strings.Contains(text, tt.want) || strings.Contains(text, "env-key") {
				t.Fatalf("banner:\n%s\nwant %q and no API key", text, tt.want)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			for lines.Scan() {
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("serve did not exit cleanly on SIGTERM: %v", err)
			}
		})
	}
}
