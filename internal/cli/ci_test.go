package cli

import (
	"context"
	"encoding/xml"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ciScript is the recipe of docs/ci.md, as written there.
func ciScript(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "<!-- ci-script:begin -->\n```sh\n")
	if ok {
		block, _, ok = strings.Cut(block, "```\n<!-- ci-script:end -->")
	}
	if !ok {
		t.Fatal("docs/ci.md has no ci-script block")
	}
	return block
}

// ciRun is one run of the recipe.
type ciRun struct {
	out  string
	err  error
	took time.Duration
	dir  string // the directory it ran in
}

// runCIScript runs script with sh in a clean directory, with sandview on
// the PATH and env added, and checks that it left nothing behind: no
// process of its group, no file in its TMPDIR or HOME.
func runCIScript(t *testing.T, script string, env ...string) ciRun {
	t.Helper()
	dir := t.TempDir()
	tmp, home := filepath.Join(dir, "tmp"), filepath.Join(dir, "home")
	for _, d := range []string{tmp, home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "mail-test.sh")
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(builtBinary)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"SVC_HTTP=127.0.0.1:0", "SVC_SMTP=127.0.0.1:0", "TMPDIR="+tmp, "HOME="+home, "XDG_CONFIG_HOME=",
		"SANDVIEW_HOME=", "SERVICE_URL=", "SERVICE_API_KEY=", "SMTP_HOST=", "SMTP_PORT=")
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	began := time.Now()
	out, err := cmd.CombinedOutput()
	run := ciRun{out: string(out), err: err, took: time.Since(began), dir: dir}
	// The script waits for its server in its EXIT trap: once it has ended,
	// nothing of its process group may be left.
	if err := syscall.Kill(-cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Errorf("the script left processes behind (kill -0 on its group: %v)\n%s", err, out)
	}
	for _, d := range []string{tmp, home} {
		if left, _ := os.ReadDir(d); len(left) > 0 {
			t.Errorf("the script left %s behind in %s\n%s", left[0].Name(), d, out)
		}
	}
	return run
}

// TestDocsCIScript runs docs/ci.md's script as written: it starts
// `sandview serve` with a catch-all on free ports (SVC_HTTP, SVC_SMTP),
// sends the app's mail, checks it with email expect (its JUnit file says
// every assertion passed) and prints the link from wait --extract link.
func TestDocsCIScript(t *testing.T) {
	script := ciScript(t)
	run := runCIScript(t, script)
	if run.err != nil || !strings.HasSuffix(run.out, "confirmation link: https://app.example/confirm?token=42\n") ||
		!strings.Contains(run.out, "PASS  subject") {
		t.Fatalf("the script: %v\n%s", run.err, run.out)
	}
	if tests, failures := ciJUnit(t, run); tests != 7 || failures != 0 {
		t.Fatalf("mail-junit.xml: %d tests, %d failures, want 7 and 0", tests, failures)
	}
}

// ciJUnit parses the recipe's JUnit file and returns its counts.
func ciJUnit(t *testing.T, run ciRun) (tests, failures int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(run.dir, "mail-junit.xml"))
	if err != nil {
		t.Fatalf("%v\n%s", err, run.out)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Failure *struct{} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("mail-junit.xml: %v\n%s", err, data)
	}
	failed := 0
	for _, c := range doc.Cases {
		if c.Failure != nil {
			failed++
		}
	}
	if len(doc.Cases) != doc.Tests || failed != doc.Failures {
		t.Fatalf("mail-junit.xml counts %d tests, %d failures; it holds %d cases, %d failed\n%s", doc.Tests, doc.Failures, len(doc.Cases), failed, data)
	}
	return doc.Tests, doc.Failures
}

// TestDocsCIScriptMailFailsAnAssertion: the app sends the mail with
// another subject; wait finds it, email expect fails the script (exit 1)
// saying what it found, and its JUnit file holds the failure.
func TestDocsCIScriptMailFailsAnAssertion(t *testing.T) {
	script := ciScript(t)
	const standIn = "--subject 'Confirm your account'"
	if !strings.Contains(script, standIn) {
		t.Fatalf("docs/ci.md's script has no stand-in with %s", standIn)
	}
	script = strings.Replace(script, standIn, "--subject 'Confirm your acount'", 1)
	run := runCIScript(t, script)
	var exit *exec.ExitError
	if !errors.As(run.err, &exit) || exit.ExitCode() != exitFailure || strings.Contains(run.out, "confirmation link") ||
		!strings.Contains(run.out, `FAIL  subject               expected subject is "Confirm your account"; found "Confirm your acount"`) {
		t.Fatalf("the script with another subject: %v\n%s", run.err, run.out)
	}
	if tests, failures := ciJUnit(t, run); tests != 7 || failures != 1 {
		t.Fatalf("mail-junit.xml: %d tests, %d failures, want 7 and 1", tests, failures)
	}
}

// TestDocsCIScriptMailNeverComes: the app sends another mail than the one
// waited for; the script fails with wait's timeout, naming what it waited
// for, and prints no link.
func TestDocsCIScriptMailNeverComes(t *testing.T) {
	script := ciScript(t)
	const standIn = "sandview send --to new-user@example.org --subject 'Confirm your account' \\\n  --text 'Welcome! https://app.example/confirm?token=42'\n"
	if !strings.Contains(script, standIn) {
		t.Fatalf("docs/ci.md's script has no stand-in for the app:\n%s", standIn)
	}
	script = strings.Replace(script, standIn, "sandview send --to new-user@example.org --subject 'Welcome' --text 'no link'\n", 1)
	run := runCIScript(t, script, "MAIL_TIMEOUT=2s")
	var exit *exec.ExitError
	if !errors.As(run.err, &exit) || exit.ExitCode() != exitTimeout || strings.Contains(run.out, "confirmation link") ||
		!strings.Contains(run.out, `timed out: fewer than 1 email(s) to new-user@example.org with a subject matching "^Confirm" arrived in qa@sandbox.test within 2s`) {
		t.Fatalf("the script without the mail: %v\n%s", run.err, run.out)
	}
}

// TestDocsCIScriptPortTaken: a server that cannot start fails the script
// within 15 s with the server's own error.
func TestDocsCIScriptPortTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	run := runCIScript(t, ciScript(t), "SVC_SMTP="+taken.Addr().String())
	if run.err == nil || run.took > 15*time.Second || strings.Contains(run.out, "confirmation link") ||
		!strings.Contains(run.out, "sandview serve did not start") || !strings.Contains(run.out, "address already in use") {
		t.Fatalf("the script with the SMTP port taken: %v after %s\n%s", run.err, run.took, run.out)
	}
}
