package cli

// A harness for tests of the real binary: built once into a temporary
// directory, run against the embedded server with its own state directory.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/server"
	"sandview/server/dnsresolve/dnstest"
	"sandview/server/servertest"
	"sandview/server/store/pgtest"
)

// builtBinary is the sandview binary TestMain builds for the CLI tests.
var builtBinary string

// pg is the PostgreSQL server TestMain starts for the replica tests.
var pg *pgtest.Server

// testDNS is the DNS server on loopback (it knows no name) TestMain
// starts; SVC_DNS names it.
var testDNS *dnstest.Server

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sandview-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	builtBinary = filepath.Join(dir, "sandview")
	if out, err := exec.Command("go", "build", "-o", builtBinary, "sandview").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	// The replica tests' PostgreSQL: they fail, never skip, without it.
	if pg, err = pgtest.Start(pgtest.Options{}); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: PostgreSQL did not start: %v\n", err)
		return 1
	}
	defer func() {
		if err := pg.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}()
	// Every server the tests start, as a process or in this one, asks
	// this DNS server on loopback (it knows no name), never the machine's
	// resolver: tests send nothing beyond loopback, and a slow resolver
	// cannot slow them.
	if testDNS, err = dnstest.Serve(dnstest.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer testDNS.Close()
	if err := os.Setenv("SVC_DNS", testDNS.Addr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// cliRun is the outcome of one run of the binary.
type cliRun struct {
	stdout, stderr string
	code           int
}

// cli runs the binary against one server with one state directory.
type cli struct {
	t    *testing.T
	srv  *server.Server
	home string
	ctx  context.Context
	env  []string // added to every run's environment
	// url, when set, is the --url of every run instead of the server's
	// (e.g. a proxy in front of it).
	url string
}

// serverURL is the --url of c's runs.
func (c *cli) serverURL() string {
	if c.url != "" {
		return c.url
	}
	return c.srv.URL()
}

// withEnv is c with more environment variables for its runs.
func (c *cli) withEnv(env ...string) *cli {
	copied := *c
	copied.env = append(append([]string{}, c.env...), env...)
	return &copied
}

func newCLI(t *testing.T, opts ...func(*server.Config)) *cli {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return &cli{t: t, srv: servertest.Start(t, opts...), home: t.TempDir(), ctx: ctx}
}

// start runs the binary in the background with the server flags.
func (c *cli) start(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	c.t.Helper()
	args = append([]string{"--home", c.home, "--url", c.serverURL(), "--api-key", servertest.APIKey}, args...)
	return c.startRaw(args...)
}

// startRaw runs the binary with exactly args (no server flags).
func (c *cli) startRaw(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	c.t.Helper()
	cmd := exec.CommandContext(c.ctx, builtBinary, args...)
	cmd.Env = append(os.Environ(), "SERVICE_URL=", "SERVICE_API_KEY=", "SMTP_HOST=", "SMTP_PORT=", "SANDVIEW_HOME="+c.home)
	cmd.Env = append(cmd.Env, c.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

// startWaiting starts `sandview wait` (with the server flags) and returns
// once it says it is waiting: mail sent from then on is new to it. Call
// the returned function for the outcome.
func (c *cli) startWaiting(args ...string) (finish func() cliRun) {
	c.t.Helper()
	args = append([]string{"--home", c.home, "--url", c.serverURL(), "--api-key", servertest.APIKey}, args...)
	cmd := exec.CommandContext(c.ctx, builtBinary, args...)
	cmd.Env = append(os.Environ(), "SERVICE_URL=", "SERVICE_API_KEY=", "SANDVIEW_HOME="+c.home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	r, w, err := os.Pipe()
	if err != nil {
		c.t.Fatal(err)
	}
	cmd.Stderr = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		c.t.Fatal(err)
	}
	lines := bufio.NewReader(r)
	for {
		line, err := lines.ReadString('\n')
		stderr.WriteString(line)
		if strings.Contains(line, "waiting up to") {
			break
		}
		if err != nil {
			c.t.Fatalf("sandview %v ended before it waited: %s", args, stderr.String())
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer r.Close()
		_, _ = io.Copy(&stderr, lines) // until the process exits
	}()
	return func() cliRun {
		c.t.Helper()
		<-done
		return c.finish(cmd, &stdout, &stderr)
	}
}

func (c *cli) finish(cmd *exec.Cmd, stdout, stderr *bytes.Buffer) cliRun {
	c.t.Helper()
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		c.t.Fatal(err)
	}
	return cliRun{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
}

// run runs the binary with the server flags and waits for it.
func (c *cli) run(args ...string) cliRun {
	c.t.Helper()
	return c.finish(c.start(args...))
}

// must runs the binary and fails the test unless it exits 0.
func (c *cli) must(args ...string) cliRun {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("sandview %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r
}
