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

// TestServeRefusesPrivateWebhookDestinations: `sandview serve` refuses a
// webhook to a loopback address unless --private-webhooks or
// SVC_WEBHOOK_ALLOW_PRIVATE=true allows it.
func TestServeRefusesPrivateWebhookDestinations(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tt := range []struct {
		name    string
		flags   []string
		env     string
		allowed bool
	}{
		{"default", nil, "", false},
		{"flag", []string{"--private-webhooks"}, "", true},
		{"environment", nil, "SVC_WEBHOOK_ALLOW_PRIVATE=true", true},
		{"flag wins", []string{"--private-webhooks=false"}, "SVC_WEBHOOK_ALLOW_PRIVATE=true", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--api-key", "hooks-key"}, tt.flags...)
			cmd := exec.CommandContext(ctx, builtBinary, args...)
			cmd.Env = append(os.Environ(), "SVC_DATA="+t.TempDir(), "SVC_WEBHOOK_ALLOW_HTTP=true", tt.env)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var url string
			lines := bufio.NewScanner(stdout)
			for url == "" && lines.Scan() {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(lines.Text()), "HTTP API"); ok {
					url = strings.TrimSpace(rest)
				}
			}
			go func() {
				for lines.Scan() {
				}
			}()
			defer func() {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				_ = cmd.Wait()
			}()
			if url == "" {
				t.Fatal("serve printed no HTTP API address")
			}
			h := &cli{t: t, home: t.TempDir(), ctx: ctx}
			r := h.finish(h.startRaw("--url", url, "--api-key", "hooks-key", "webhook", "create",
				"--endpoint", "http://127.0.0.1:9/hook", "--event", "email.received"))
			if tt.allowed && r.code != 0 {
				t.Errorf("refused: exit %d, %s", r.code, r.stderr)
			}
			if !tt.allowed && (r.code == 0 || !strings.Contains(r.stderr, "SVC_WEBHOOK_ALLOW_PRIVATE")) {
				t.Errorf("exit %d, stderr %q; want a refusal naming SVC_WEBHOOK_ALLOW_PRIVATE", r.code, r.stderr)
			}
		})
	}
}

// TestLocalAllowsPrivateWebhookDestinations: `sandview --local` is a
// sandbox on this machine: its webhooks may target private addresses.
func TestLocalAllowsPrivateWebhookDestinations(t *testing.T) {
	_, h := startLocalForTest(t)
	h.mustRaw("--home", h.home, "webhook", "create", "--local", "--endpoint", "https://10.0.0.1/hook", "--event", "email.received")
	h.mustRaw("--home", h.home, "webhook", "create", "--local", "--endpoint", "http://127.0.0.1:9/hook", "--event", "email.received")
}
