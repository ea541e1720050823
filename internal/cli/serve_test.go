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
		{"SVC_LOG_LEVEL=info", "profile   contract (the interface as written)"},
		{"SVC_COMPAT=reference", "profile   reference (answers like the reference deployment, for the official SDKs)"},
		{"SVC_CATCH_ALL=All@Sandbox.test", "catch-all all@sandbox.test takes mail for any other address"},
		{"SVC_SPAMD=127.0.0.1:783", "spam      scored by spamd at 127.0.0.1:783"},
		{"SVC_DOMAINS=a.test ,  B.test,a.test", "domains   a.test, b.test\n"},
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

// TestServeRefusesWhatItCannotServe: a bad profile or a catch-all outside
// the served domains stops `sandview serve` with one line.
func TestServeRefusesWhatItCannotServe(t *testing.T) {
	h := &cli{t: t, home: t.TempDir(), ctx: context.Background()}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--compat", "gateway"}, `--compat: unknown wire profile "gateway"`},
		{[]string{"--catch-all", "all@elsewhere.example"}, `catch-all all@elsewhere.example: domain "elsewhere.example" is not allowed`},
		{[]string{"--local"}, "--local is for the other commands"},
		{[]string{"--smtp-auth-file", "/nonexistent/users"}, "SMTP auth file: open /nonexistent/users"},
		{[]string{"--smtp-max-conns", "-1"}, "SMTP connection limits, idle timeout and buffer size must be positive"},
	} {
		args := append([]string{"serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--api-key", "k"}, c.args...)
		r := h.finish(h.startRaw(args...))
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("serve %v: exit %d, %q; want one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
	// The SMTP limits' variables, as --local honours them too.
	for env, want := range map[string]string{
		"SVC_SMTP_AUTH_FILE=/nonexistent/users": "SMTP auth file: open /nonexistent/users",
		"SVC_SMTP_MAX_CONNS_PER_IP=-2":          "SMTP connection limits",
		"SVC_SMTP_IDLE_TIMEOUT=soon":            "environment variable SVC_SMTP_IDLE_TIMEOUT",
	} {
		r := h.withEnv(env).finish(h.withEnv(env).startRaw("serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--api-key", "k"))
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("serve with %s: exit %d, %q; want %q", env, r.code, r.stderr, want)
		}
	}
}

// TestServeBadValueNamesItsSource: a bad value is a usage error (exit 2)
// naming where it came from, the flag or the variable.
func TestServeBadValueNamesItsSource(t *testing.T) {
	h := &cli{t: t, home: t.TempDir(), ctx: context.Background()}
	for _, c := range []struct {
		flag, env, value string
	}{
		{"--log-level", "SVC_LOG_LEVEL", "loud"},
		{"--encryption-policy", "SVC_ENCRYPTION_POLICY", "bogus"},
		{"--compat", "SVC_COMPAT", "bogus"},
		{"--max-ttl", "SVC_MAX_TTL", "soon"},
		{"--domain", "SVC_DOMAINS", "not a domain"},
	} {
		base := []string{"serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--api-key", "k"}
		byFlag := h.finish(h.startRaw(append(base, c.flag, c.value)...))
		if byFlag.code != exitUsage || !strings.Contains(byFlag.stderr, c.flag) || strings.Contains(byFlag.stderr, c.env) || !strings.Contains(byFlag.stderr, c.value) {
			t.Errorf("serve %s %s: exit %d, %q; want %d naming %s", c.flag, c.value, byFlag.code, byFlag.stderr, exitUsage, c.flag)
		}
		env := c.env + "=" + c.value
		byEnv := h.withEnv(env).finish(h.withEnv(env).startRaw(base...))
		if byEnv.code != exitUsage || !strings.Contains(byEnv.stderr, c.env) || strings.Contains(byEnv.stderr, c.flag) || !strings.Contains(byEnv.stderr, c.value) {
			t.Errorf("serve with %s: exit %d, %q; want %d naming %s", env, byEnv.code, byEnv.stderr, exitUsage, c.env)
		}
	}
}
