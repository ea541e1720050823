// Package pgtest runs a throwaway PostgreSQL server for tests: Debian's
// binaries (initdb and pg_ctl from /usr/lib/postgresql/*/bin) start a
// cluster in a temporary directory on a random loopback port, with password
// authentication. A test package starts one server in TestMain (Main) and
// gives each test its own database (NewDatabase), so tests stay fast and
// independent. When the tests run as root the cluster runs as the postgres
// user. RestartImmediate restarts it as after a crash; a Proxy in front of
// it loses the answer to a chosen commit.
//
// The server stops when the tests end, also when a test fails or panics or
// the test binary is killed: a watcher process waits for the test binary's
// end (the close of a pipe it holds) and then runs pg_ctl stop.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

// User is the superuser every URL names.
const User = "postgres"

// Server is a running PostgreSQL cluster.
type Server struct {
	bin      string
	dir      string
	port     int
	password string
	runAs    *user.User // nil: run as the current user
	watcher  *exec.Cmd
	// watcherPipe is the watcher's standard input, closed by this
	// process's end.
	watcherPipe io.WriteCloser
	dbs         atomic.Int64
}

// Options tune Start.
type Options struct {
	// Durable keeps fsync and synchronous commit on (benchmarks); tests
	// run without them. Without fsync nothing is lost when only PostgreSQL
	// crashes (RestartImmediate): what it wrote is in the kernel's cache.
	// The store sets synchronous_commit for its own sessions.
	Durable bool
}

// Main starts one server for a test package, runs its tests with the
// server in *srv, stops it and exits. Use it as TestMain's body. The tests
// fail, never skip, when PostgreSQL cannot start. A run with -bench gets a
// durable server (Options.Durable).
func Main(m *testing.M, srv **Server, opts Options) {
	flag.Parse()
	if bench := flag.Lookup("test.bench"); bench != nil && bench.Value.String() != "" {
		opts.Durable = true
	}
	s, err := Start(opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: PostgreSQL did not start: %v\n", err)
		os.Exit(1)
	}
	*srv = s
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// binDir finds the newest installed PostgreSQL's binaries.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a < b
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "pg_ctl")); err == nil {
			return dirs[i], nil
		}
	}
	if path, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(path), nil
	}
	return "", errors.New("no PostgreSQL binaries under /usr/lib/postgresql/*/bin or on PATH (install the postgresql package)")
}

// Start initialises and starts a cluster.
func Start(opts Options) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, password: randomHex(16)}
	if os.Geteuid() == 0 {
		if s.runAs, err = user.Lookup("postgres"); err != nil {
			return nil, fmt.Errorf("running as root needs the postgres user: %w", err)
		}
	}
	if s.dir, err = os.MkdirTemp("", "pgtest-"); err != nil {
		return nil, err
	}
	if err := s.own(s.dir); err != nil {
		s.removeDir()
		return nil, err
	}
	pwfile := filepath.Join(s.dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o600); err != nil {
		s.removeDir()
		return nil, err
	}
	if err := s.own(pwfile); err != nil {
		s.removeDir()
		return nil, err
	}
	data := filepath.Join(s.dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", User, "--pwfile", pwfile, "-A", "scram-sha-256", "-E", "UTF8", "--no-sync"); err != nil {
		s.removeDir()
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	settings := []string{"-c listen_addresses=127.0.0.1", "-k " + s.dir, "-c max_connections=200"}
	if !opts.Durable {
		settings = append(settings, "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off")
	}
	// A port picked free may be taken before the server binds it: try a
	// few.
	var lastErr error
	for range 3 {
		if s.port, err = freePort(); err != nil {
			s.removeDir()
			return nil, err
		}
		o := strings.Join(append(settings, "-p "+strconv.Itoa(s.port)), " ")
		out, err := s.run("pg_ctl", "-D", data, "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "-o", o, "start")
		if err == nil {
			lastErr = nil
			break
		}
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		lastErr = fmt.Errorf("pg_ctl start: %w: %s %s", err, out, log)
	}
	if lastErr != nil {
		s.removeDir()
		return nil, lastErr
	}
	if err := s.watch(data); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// watch starts the process that stops the cluster once this process ends,
// however it ends.
func (s *Server) watch(data string) error {
	stop := s.command("pg_ctl", "-D", data, "-m", "immediate", "stop")
	script := "read _ ; " + shellQuote(stop.Args) + " >/dev/null 2>&1 ; rm -rf " + shellQuote([]string{s.dir})
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the watcher: %w", err)
	}
	// The write end stays open, unused, for as long as this process lives.
	s.watcher, s.watcherPipe = cmd, pipe
	return nil
}

func shellQuote(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

// Stop stops the cluster and removes its directory.
func (s *Server) Stop() error {
	out, err := s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "fast", "-w", "stop")
	s.removeDir()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return nil
}

// RestartImmediate stops the cluster as a crash would (pg_ctl's immediate
// mode: every connection ends at once, nothing is checkpointed) and starts
// it again with the same settings, on the same port, returning when it
// accepts connections.
func (s *Server) RestartImmediate(t testing.TB) {
	t.Helper()
	data := filepath.Join(s.dir, "data")
	if out, err := s.run("pg_ctl", "-D", data, "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "-m", "immediate", "restart"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		t.Fatalf("pgtest: pg_ctl restart: %v: %s %s", err, out, log)
	}
}

func (s *Server) removeDir() { _ = os.RemoveAll(s.dir) }

// command builds a command of the cluster's binaries, as the postgres
// user when running as root.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if s.runAs != nil {
		return exec.Command("runuser", append([]string{"-u", s.runAs.Username, "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmd := s.command(name, args...)
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

// own gives path to the postgres user when running as root.
func (s *Server) own(path string) error {
	if s.runAs == nil {
		return nil
	}
	uid, _ := strconv.Atoi(s.runAs.Uid)
	gid, _ := strconv.Atoi(s.runAs.Gid)
	if err := os.Chown(path, uid, gid); err != nil {
		return fmt.Errorf("give %s to postgres: %w", path, err)
	}
	return nil
}

// URL is the connection URL of database db.
func (s *Server) URL(db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(User, s.password), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), Path: "/" + db}
	return u.String()
}

// Port is the cluster's TCP port.
func (s *Server) Port() int { return s.port }

// Password is the superuser's password.
func (s *Server) Password() string { return s.password }

// NewDatabase creates an empty database for t and returns its URL.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d", s.dbs.Add(1))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	return s.URL(name)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
