package sshbox

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// failingSigner offers a key it cannot sign with: the client only asks
// the server about it.
type failingSigner struct {
	gossh.Signer
	asked *atomic.Bool
}

func (f failingSigner) Sign(io.Reader, []byte) (*gossh.Signature, error) {
	f.asked.Store(true)
	return nil, errors.New("this key only asks")
}

func TestTheUserIsTheKeyThatSigned(t *testing.T) {
	alice, bob := newAccount(t), newAccount(t)
	tb := startBox(t, []string{alice.entry(`role="admin"`, "alice"), bob.entry(`role="viewer"`, "bob")}, nil)
	var asked atomic.Bool
	methods := []gossh.AuthMethod{
		gossh.PublicKeys(failingSigner{Signer: alice.signer, asked: &asked}),
		gossh.PublicKeys(bob.signer),
	}
	next := 0
	c, err := gossh.Dial("tcp", tb.Addr(), &gossh.ClientConfig{
		User: "alice", HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second,
		AuthCallback: func(*gossh.ClientAuthContext) (gossh.AuthMethod, error) {
			if next == len(methods) {
				return nil, errors.New("no more keys")
			}
			next++
			return methods[next-1], nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !asked.Load() {
		t.Fatal("the server did not accept the query of alice's key: the test proves nothing")
	}
	out, _, code := run(t, c, "whoami")
	if code != 0 || out != "bob viewer "+bob.fp+"\n" {
		t.Fatalf("whoami = %q (exit %d), want bob", out, code)
	}
}

func TestOnlyDisplayVariablesReachTheHandlers(t *testing.T) {
	alice := newAccount(t)
	tb := startBox(t, []string{alice.entry("", "alice")}, nil)
	c := tb.dial(t, alice)
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"BROWSER", "SHELL", "SANDVIEW_HOME", "HOME", "LC_ALL=x", "LANGUAGE"} {
		if err := s.Setenv(name, "/tmp/evil"); err == nil {
			t.Errorf("env %s accepted", name)
		}
	}
	if err := s.Setenv("LANG", "C.UTF-8\x1b]52;c;x\a"); err == nil {
		t.Error("a value with control characters accepted")
	}
	for _, kv := range [][2]string{{"LANG", "C.UTF-8"}, {"LC_ALL", "C"}, {"NO_COLOR", "1"}, {"TERM", "xterm"}, {"COLORTERM", "truecolor"}} {
		if err := s.Setenv(kv[0], kv[1]); err != nil {
			t.Errorf("env %s refused: %v", kv[0], err)
		}
	}
	out, err := s.Output("env")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(out))
	want := []string{"LANG=C.UTF-8", "LC_ALL=C", "NO_COLOR=1", "TERM=xterm", "COLORTERM=truecolor"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the handler's environment is %q, want %q", got, want)
	}
}

func TestWindowSizesAreClamped(t *testing.T) {
	alice := newAccount(t)
	sizes := make(chan [2]int, 8)
	tb := startBox(t, []string{alice.entry("", "alice")}, func(cfg *Config) {
		cfg.Interactive = func(ctx context.Context, s Session) {
			pty, windows, _ := s.Pty()
			sizes <- [2]int{pty.Window.Width, pty.Window.Height}
			for {
				select {
				case <-ctx.Done():
					return
				case w, ok := <-windows:
					if !ok {
						return
					}
					sizes <- [2]int{w.Width, w.Height}
				}
			}
		}
	})
	c := tb.dial(t, alice)
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm-256color", 65535, 65535, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	next := func() [2]int {
		select {
		case got := <-sizes:
			return got
		case <-time.After(10 * time.Second):
			t.Fatal("no size reached the handler")
			return [2]int{}
		}
	}
	if got := next(); got != [2]int{MaxWidth, MaxHeight} {
		t.Fatalf("the first size is %v, want 500x200", got)
	}
	if got := next(); got != [2]int{MaxWidth, MaxHeight} { // the first window, on the channel
		t.Fatalf("the first window is %v, want 500x200", got)
	}
	if err := s.WindowChange(65535, 65535); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != [2]int{MaxWidth, MaxHeight} {
		t.Fatalf("a window change reached the handler as %v, want 500x200", got)
	}
	if err := s.WindowChange(0, 0); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != [2]int{1, 1} {
		t.Fatalf("a zero window reached the handler as %v, want 1x1", got)
	}
	if err := s.WindowChange(40, 120); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != [2]int{120, 40} {
		t.Fatalf("a normal window reached the handler as %v, want 120x40", got)
	}
}

func TestCommandLinesAreBounded(t *testing.T) {
	alice := newAccount(t)
	var ran atomic.Int32
	tb := startBox(t, []string{alice.entry("", "alice")}, func(cfg *Config) {
		cfg.Command = func(ctx context.Context, s Session, args []string) int {
			ran.Add(1)
			return 0
		}
	})
	c := tb.dial(t, alice)
	defer c.Close()
	huge := "email list " + strings.Repeat(`"a b" 'c' `, 24*1024) // 240 KiB of quoted words
	for _, tc := range []struct{ name, cmd, reason string }{
		{"240 KiB", huge, "bytes"},
		{"65 words", strings.TrimSpace(strings.Repeat("w ", 65)), "words"},
		{"legacy scp", "scp -t /tmp", "scp"},
	} {
		start := time.Now()
		_, stderr, code := run(t, c, tc.cmd)
		t.Logf("%s: refused in %v", tc.name, time.Since(start))
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.reason) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line naming %s", tc.name, code, stderr, tc.reason)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the command handler ran %d times", n)
	}
	if _, _, code := run(t, c, strings.TrimSpace(strings.Repeat("w ", 64))); code != 0 || ran.Load() != 1 {
		t.Fatalf("64 words: exit %d, ran %d", code, ran.Load())
	}
}

func TestOnlySessionChannelsAndRequests(t *testing.T) {
	alice := newAccount(t)
	tb := startBox(t, []string{alice.entry("", "alice")}, nil)
	c := tb.dial(t, alice)
	defer c.Close()
	if conn, err := c.Dial("tcp", tb.Addr()); err == nil {
		conn.Close()
		t.Fatal("a direct-tcpip channel was opened")
	}
	if ln, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
		t.Fatal("a remote port forward was accepted")
	}
	if ok, _, err := c.SendRequest("keepalive@example.com", true, nil); err != nil || ok {
		t.Fatalf("a global request: ok %v, err %v", ok, err)
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, req := range []string{"auth-agent-req@openssh.com", "x11-req"} {
		if ok, err := s.SendRequest(req, true, nil); err != nil || ok {
			t.Errorf("%s: ok %v, err %v", req, ok, err)
		}
	}
	if _, _, code := run(t, c, "whoami"); code != 0 {
		t.Fatalf("the connection is unusable after the refusals: exit %d", code)
	}
}

func TestNoPtyKeysRunCommandsOnly(t *testing.T) {
	alice, bob := newAccount(t), newAccount(t)
	tb := startBox(t, []string{alice.entry("restrict", "alice"), bob.entry("restrict,pty", "bob")}, nil)
	for _, tc := range []struct {
		who account
		pty bool
	}{{alice, false}, {bob, true}} {
		c := tb.dial(t, tc.who)
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RequestPty("xterm", 24, 80, nil); (err == nil) != tc.pty {
			t.Errorf("pty request: %v, want a pty %v", err, tc.pty)
		}
		s.Close()
		if out, _, code := run(t, c, "whoami"); code != 0 || out == "" {
			t.Errorf("a command: exit %d", code)
		}
		c.Close()
	}
}

func TestFromAndExpiryAreHonoured(t *testing.T) {
	keys := map[string]account{}
	for _, n := range []string{"here", "elsewhere", "negated", "expired", "future", "glob"} {
		keys[n] = newAccount(t)
	}
	tb := startBox(t, []string{
		keys["here"].entry(`from="10.0.0.0/8,127.0.0.1"`, "here"),
		keys["elsewhere"].entry(`from="10.*,192.168.1.?"`, "elsewhere"),
		keys["negated"].entry(`from="127.0.0.0/8,!127.0.0.1"`, "negated"),
		keys["expired"].entry(`expiry-time="20200101"`, "expired"),
		keys["future"].entry(`expiry-time="29991231235959Z"`, "future"),
		keys["glob"].entry(`from="127.0.0.*"`, "glob"),
	}, nil)
	for name, reason := range map[string]string{"here": "", "elsewhere": "from", "negated": "from", "expired": "expired", "future": "", "glob": ""} {
		c, err := tb.tryDial(gossh.PublicKeys(keys[name].signer))
		if (err == nil) != (reason == "") {
			t.Errorf("%s: dial error %v, want refused for %q", name, err, reason)
		}
		if c != nil {
			c.Close()
		}
		if reason != "" && len(tb.log.lines("event=refused", "fp="+keys[name].fp, "reason="+reason, "remote=127.0.0.1:")) == 0 {
			t.Errorf("%s: no refusal logged for %s:\n%s", name, reason, tb.log)
		}
	}
}

func TestAuditTrail(t *testing.T) {
	alice, stranger := newAccount(t), newAccount(t)
	tb := startBox(t, []string{alice.entry(`role="viewer"`, "alice")}, nil)
	c := tb.dial(t, alice)
	run(t, c, "whoami")
	c.Close()
	if _, err := tb.tryDial(gossh.PublicKeys(stranger.signer)); err == nil {
		t.Fatal("a stranger got in")
	}
	who := []string{"fp=" + alice.fp, "user=alice", "role=viewer", "remote=127.0.0.1:", "kind=command"}
	if len(tb.log.lines(append([]string{"event=login"}, who...)...)) != 1 {
		t.Errorf("no login line:\n%s", tb.log)
	}
	waitFor(t, "the logout line", func() bool {
		return len(tb.log.lines(append([]string{"event=logout", "duration="}, who...)...)) == 1
	})
	if len(tb.log.lines("event=refused", "fp="+stranger.fp, `reason="unknown key"`)) == 0 {
		t.Errorf("no refusal line:\n%s", tb.log)
	}
}

func TestARemovedKeyEndsItsConnections(t *testing.T) {
	alice, bob := newAccount(t), newAccount(t)
	removed := make(chan User, 4)
	tb := startBox(t, []string{alice.entry("", "alice"), bob.entry("", "bob")}, func(cfg *Config) {
		cfg.Removed = func(u User) { removed <- u }
	})
	c := tb.dial(t, alice)
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("block"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(out, make([]byte, len("started\n"))); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tb.write(t, bob.entry("", "bob"))
	ended := make(chan error, 1)
	go func() { ended <- s.Wait() }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the open session of a removed key did not end")
	}
	t.Logf("the session ended %v after the key was removed", time.Since(start))
	if s2, err := c.NewSession(); err == nil {
		s2.Close()
		t.Fatal("a new session opened on the removed key's connection")
	}
	select {
	case u := <-removed:
		if u.ID != alice.fp || u.Name != "alice" {
			t.Fatalf("Removed(%+v), want alice", u)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Removed was not called")
	}
	if len(removed) != 0 {
		t.Fatalf("Removed called more than once")
	}
	b := tb.dial(t, bob)
	defer b.Close()
	if out, _, code := run(t, b, "whoami"); code != 0 || !strings.HasPrefix(out, "bob ") {
		t.Fatalf("bob, still listed: %q exit %d", out, code)
	}
}

func TestTheWatcherStopsAtShutdown(t *testing.T) {
	alice := newAccount(t)
	tb := startBox(t, []string{alice.entry("", "alice")}, nil)
	select {
	case <-tb.watching:
		t.Fatal("the watcher is not running")
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tb.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-tb.watching:
	default:
		t.Fatal("the watcher still runs after Shutdown")
	}
	if _, err := net.DialTimeout("tcp", tb.Addr(), time.Second); err == nil {
		t.Fatal("the box still listens")
	}
}

func TestAChangedOrExpiringKeyEndsItsConnections(t *testing.T) {
	alice, bob := newAccount(t), newAccount(t)
	var removed atomic.Int32
	soon := time.Now().UTC().Add(4 * time.Second).Format("20060102150405")
	tb := startBox(t, []string{alice.entry("", "alice"), bob.entry(`expiry-time="`+soon+`"`, "bob")}, func(cfg *Config) {
		cfg.Removed = func(User) { removed.Add(1) }
	})
	a, b := tb.dial(t, alice), tb.dial(t, bob)
	defer a.Close()
	defer b.Close()
	closed := func(c *gossh.Client) func() bool {
		done := make(chan struct{})
		go func() { _ = c.Wait(); close(done) }()
		return func() bool {
			select {
			case <-done:
				return true
			default:
				return false
			}
		}
	}
	aClosed, bClosed := closed(a), closed(b)
	tb.write(t, alice.entry(`role="viewer"`, "alice"), bob.entry(`expiry-time="`+soon+`"`, "bob"))
	waitFor(t, "alice's connection to close after her role changed", aClosed)
	waitFor(t, "bob's connection to close when his key expired", bClosed)
	if n := removed.Load(); n != 0 {
		t.Fatalf("Removed called %d times for keys still listed", n)
	}
	a = tb.dial(t, alice)
	defer a.Close()
	if out, _, _ := run(t, a, "whoami"); !strings.HasPrefix(out, "alice viewer ") {
		t.Fatalf("alice after the change: %q", out)
	}
	if len(tb.log.lines("event=changed", "fp="+alice.fp)) != 1 {
		t.Fatalf("no change line:\n%s", tb.log)
	}
}

func TestARefusedLineIsLoggedAndTheOthersLoad(t *testing.T) {
	alice, mallory := newAccount(t), newAccount(t)
	tb := startBox(t, []string{"# keys", mallory.entry(`command="sh"`, "mallory"), alice.entry("", "alice")}, nil)
	if len(tb.log.lines("line skipped", "file="+tb.keys, "line=2", "option command")) != 1 {
		t.Fatalf("no line naming the file, line and option:\n%s", tb.log)
	}
	if _, err := tb.tryDial(gossh.PublicKeys(mallory.signer)); err == nil {
		t.Fatal("a key with command= got in")
	}
	c := tb.dial(t, alice)
	c.Close()
}
