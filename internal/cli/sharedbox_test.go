package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serverProcess is a `sandview serve` or headless `sandview --local`
// started by a test, with the export lines of its connect block.
type serverProcess struct {
	cmd     *exec.Cmd
	banner  string
	exports string // the lines starting with "export "
	rest    chan string
	exited  chan error
}

// startServerProcess runs the binary with args (stdin not a terminal) and
// reads its stdout up to the last export line.
func startServerProcess(t *testing.T, home string, args ...string) *serverProcess {
	t.Helper()
	cmd := exec.Command(builtBinary, args...)
	cmd.Env = append(os.Environ(), "SANDVIEW_HOME="+home, "SERVICE_URL=", "SERVICE_API_KEY=", "SMTP_HOST=", "SMTP_PORT=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serverProcess{cmd: cmd, rest: make(chan string, 1), exited: make(chan error, 1)}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.rest
	})
	lines := bufio.NewReader(stdout)
	var banner, exports strings.Builder
	for {
		line, err := lines.ReadString('\n')
		banner.WriteString(line)
		if strings.HasPrefix(line, "export ") {
			exports.WriteString(line)
		}
		if strings.HasPrefix(line, "export SMTP_HOST=") {
			break
		}
		if err != nil {
			t.Fatalf("sandview %v ended before its connect block:\n%s", args, banner.String())
		}
	}
	p.banner, p.exports = banner.String(), exports.String()
	go func() {
		rest, _ := io.ReadAll(lines)
		p.exited <- cmd.Wait()
		p.rest <- string(rest)
	}()
	return p
}

// stop sends sig and returns the process's exit code and the rest of its
// output.
func (p *serverProcess) stop(t *testing.T, sig syscall.Signal) (int, string) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not stop within 30 s of %v", sig)
	}
	rest := <-p.rest
	p.rest <- rest // for the cleanup
	return p.cmd.ProcessState.ExitCode(), rest
}

// shell runs script with sh in home after eval'ing the export lines, with
// sandview on the PATH and no SERVICE_*/SMTP_* of the test's own.
func shell(t *testing.T, home, exports, script string) cliRun {
	t.Helper()
	cmd := exec.Command("sh", "-c", `eval "$EXPORTS"; `+script)
	cmd.Env = append(os.Environ(), "EXPORTS="+exports, "SANDVIEW_HOME="+home,
		"PATH="+filepath.Dir(builtBinary)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"SERVICE_URL=", "SERVICE_API_KEY=", "SMTP_HOST=", "SMTP_PORT=")
	h := &cli{t: t}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		h.t.Fatal(err)
	}
	return cliRun{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
}

// TestServeCatchAllReadableByAnyone: `sandview serve --catch-all` prints a
// connect block whose export lines a script evals; from there another
// process with no keystore entry sends mail to any address, lists the
// catch-all by its address, waits for one recipient's mail (--to),
// attaches and forgets it; an encrypted inbox not in the keystore and a
// missing one say so. The API key is never printed, and serve stops
// cleanly on SIGTERM.
func TestServeCatchAllReadableByAnyone(t *testing.T) {
	serverHome, userHome := t.TempDir(), t.TempDir()
	srv := startServerProcess(t, serverHome, "serve", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0", "--catch-all", "qa@sandbox.test")
	keyFile := filepath.Join(serverHome, "server", "api-key")
	key, err := os.ReadFile(keyFile)
	if err != nil || len(key) == 0 {
		t.Fatalf("key file: %v", err)
	}
	for _, want := range []string{"API key   in " + keyFile, "export SERVICE_URL=http://127.0.0.1:", `export SERVICE_API_KEY="$(cat ` + keyFile + `)"`, "export SMTP_HOST=127.0.0.1 SMTP_PORT="} {
		if !strings.Contains(srv.banner, want) {
			t.Fatalf("the banner lacks %q:\n%s", want, srv.banner)
		}
	}
	if strings.Contains(srv.banner, strings.TrimSpace(string(key))) {
		t.Fatal("serve printed the API key")
	}

	run := func(script string) cliRun { return shell(t, userHome, srv.exports, script) }
	must := func(script string) cliRun {
		t.Helper()
		r := run(script)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", script, r.code, r.stdout, r.stderr)
		}
		return r
	}
	must(`sandview send --to someone@elsewhere.example --subject "For someone" && sandview send --to bob@example.org --subject "For Bob"`)
	waited := decodeJSON[[]emailView](t, must(`sandview wait --inbox qa@sandbox.test --to Bob@Example.org --timeout 30s --json`))
	if len(waited) != 1 || waited[0].Subject != "For Bob" {
		t.Fatalf("wait --to bob: %+v", waited)
	}
	listed := decodeJSON[[]emailView](t, must(`sandview wait --inbox qa@sandbox.test --count 2 --timeout 30s >/dev/null && sandview email list --inbox qa@sandbox.test --json`))
	if len(listed) != 2 {
		t.Fatalf("the catch-all lists %+v, want both mails", listed)
	}
	if _, err := os.Stat(filepath.Join(userHome, "inboxes")); !os.IsNotExist(err) {
		t.Fatalf("reading by address wrote a keystore: %v", err)
	}

	attached := decodeJSON[inboxView](t, must(`sandview inbox attach qa@sandbox.test --json`))
	if attached.EmailAddress != "qa@sandbox.test" || attached.Encrypted || attached.EmailAuth != nil {
		t.Fatalf("attach: %+v (emailAuth is not known by address)", attached)
	}
	if r := must(`sandview inbox list`); !strings.Contains(r.stdout, "unknown") {
		t.Fatalf("the list does not say the attached inbox's emailAuth is unknown:\n%s", r.stdout)
	}
	if r := must(`sandview email list --json`); len(decodeJSON[[]emailView](t, r)) != 2 {
		t.Fatalf("the attached inbox, the only one, lists %s", r.stdout)
	}
	if r := must(`sandview inbox forget qa@sandbox.test`); !strings.Contains(r.stdout, "stays on the server") {
		t.Fatalf("forget: %q", r.stdout)
	}
	if listed := decodeJSON[[]inboxView](t, must(`sandview inbox list --json`)); len(listed) != 0 {
		t.Fatalf("after forget the keystore holds %+v", listed)
	}
	if r := run(`sandview inbox forget qa@sandbox.test`); r.code != exitFailure || !strings.Contains(r.stderr, "not in the keystore") {
		t.Fatalf("forgetting twice: exit %d, %q", r.code, r.stderr)
	}
	if listed := decodeJSON[[]emailView](t, must(`sandview email list --inbox qa@sandbox.test --json`)); len(listed) != 2 {
		t.Fatal("forget deleted mail on the server")
	}

	ownerHome := t.TempDir()
	enc := decodeJSON[inboxView](t, shellMust(t, ownerHome, srv.exports, `sandview inbox create --encrypted --json`))
	shellMust(t, ownerHome, srv.exports, `sandview send --to `+enc.EmailAddress+` --subject sealed && sandview wait --inbox `+enc.EmailAddress+` --timeout 30s`)
	for _, script := range []string{`sandview email list --inbox ` + enc.EmailAddress, `sandview inbox attach ` + enc.EmailAddress} {
		r := run(script)
		if want := enc.EmailAddress + " is encrypted and its key is not in this keystore"; r.code != exitFailure || !strings.Contains(r.stderr, want) {
			t.Fatalf("%s: exit %d, %q; want %q", script, r.code, r.stderr, want)
		}
	}
	if r := run(`sandview email list --inbox nobody@sandbox.test`); r.code != exitFailure || !strings.Contains(r.stderr, "neither in the keystore nor on the server") {
		t.Fatalf("a missing inbox: exit %d, %q", r.code, r.stderr)
	}

	if code, rest := srv.stop(t, syscall.SIGTERM); code != 0 || !strings.Contains(rest, "Shutting down") {
		t.Fatalf("serve on SIGTERM: exit %d, %q", code, rest)
	}
}

func shellMust(t *testing.T, home, exports, script string) cliRun {
	t.Helper()
	r := shell(t, home, exports, script)
	if r.code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", script, r.code, r.stdout, r.stderr)
	}
	return r
}

// TestLocalHeadless: `sandview --local` without a terminal serves
// headless: it prints its connect lines, other commands reach it with
// --local, through the export lines, and (send) by default; SIGINT or
// SIGTERM stop it
// cleanly (exit 0), removing its state file.
func TestLocalHeadless(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			home := t.TempDir()
			srv := startServerProcess(t, home, "--local", "--home", home, "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0")
			if !strings.Contains(srv.banner, "serving until SIGINT or SIGTERM") || !strings.Contains(srv.banner, "catch-all ") {
				t.Fatalf("banner:\n%s", srv.banner)
			}
			st, found, err := readLocalState(home)
			if err != nil || !found || st.PID != srv.cmd.Process.Pid {
				t.Fatalf("state %+v, %v, %v", st, found, err)
			}
			h := &cli{t: t, home: home}
			h.ctx = t.Context()
			h.mustRaw("--home", home, "send", "--local", "--to", "anyone@anywhere.example", "--subject", "headless one")
			shellMust(t, home, srv.exports, `sandview send --to other@anywhere.example --subject "headless two"`)
			// Without --smtp, SMTP_* or a configured SMTP server, send
			// delivers to the running local server.
			h.mustRaw("--home", home, "send", "--to", "third@anywhere.example", "--subject", "headless three")
			waited := decodeJSON[[]emailView](t, h.mustRaw("--home", home, "wait", "--local", "--subject", "^headless", "--count", "3", "--timeout", "30s", "--json"))
			if len(waited) != 3 {
				t.Fatalf("waited %+v", waited)
			}
			if code, rest := srv.stop(t, sig); code != 0 || !strings.Contains(rest, "Shutting down") {
				t.Fatalf("--local on %v: exit %d, %q", sig, code, rest)
			}
			if _, err := os.Stat(localStatePath(home)); !os.IsNotExist(err) {
				t.Fatalf("the state file outlived the server: %v", err)
			}
		})
	}
}
