package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestREADMECIScript runs the README's "In CI" script as written: it
// starts `sandview serve` with a catch-all, waits for /healthz, sends the
// app's mail and takes the link out of it with wait --json and jq. The
// server listens on free ports (SVC_HTTP, SVC_SMTP).
func TestREADMECIScript(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- ci-script:begin -->\n```sh\n")
	if ok {
		block, _, ok = strings.Cut(block, "```\n<!-- ci-script:end -->")
	}
	if !ok {
		t.Fatal("the README has no ci-script block")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "mail-test.sh")
	if err := os.WriteFile(script, []byte(block), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(builtBinary)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"SVC_HTTP=127.0.0.1:0", "SVC_SMTP=127.0.0.1:0", "TMPDIR="+dir,
		"SERVICE_URL=", "SERVICE_API_KEY=", "SMTP_HOST=", "SMTP_PORT=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "confirmation link: https://app.example/confirm?token=42\n") {
		log, _ := os.ReadFile(filepath.Join(dir, "sandview.log"))
		t.Fatalf("the script: %v\n%s\nsandview.log:\n%s", err, out, log)
	}
}
