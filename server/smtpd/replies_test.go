package smtpd

import (
	"cmp"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"sandview/server/core"
	"sandview/server/emailauth"
	"sandview/server/store/memory"
)

// pipeListener accepts in-memory connections (net.Pipe): each Read of the
// client's end returns data of exactly one Write of the server's, so a
// test sees how the server split its output into writes.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// dial returns the client's end of a new connection.
func (l *pipeListener) dial(t *testing.T) net.Conn {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
	case <-time.After(10 * time.Second):
		t.Fatal("the SMTP server accepted no connection")
	}
	t.Cleanup(func() { client.Close() })
	return client
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// newTestServer is an SMTP server, not listening, named hostname, of a
// core in memory; zero settings take small defaults.
func newTestServer(t *testing.T, hostname string, set Settings) *Server {
	t.Helper()
	c, err := core.Open(context.Background(), core.Options{Store: memory.New(),
		Domains: []string{"sandbox.test"}, Resolver: &emailauth.StaticResolver{}, Hostname: hostname,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	set.MaxMessageBytes = cmp.Or(set.MaxMessageBytes, 1<<20)
	set.MaxConns = cmp.Or(set.MaxConns, 10)
	set.MaxConnsPerIP = cmp.Or(set.MaxConnsPerIP, 10)
	set.IdleTimeout = cmp.Or(set.IdleTimeout, time.Minute)
	set.NoProgressTimeout = cmp.Or(set.NoProgressTimeout, time.Minute)
	set.BufferBytes = cmp.Or(set.BufferBytes, 4<<20)
	srv, err := New(c, set)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// TestEveryReplyInOneWrite: the whole multi-line EHLO reply leaves in one
// write, so a client that reads one reply per read (the official Node
// SDK's test helper) gets all of it; single-line replies are unchanged.
func TestEveryReplyInOneWrite(t *testing.T) {
	srv := newTestServer(t, "mx.sandview.test", Settings{})
	l := newPipeListener()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { l.Close() })

	c := l.dial(t)
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	read := func() string {
		t.Helper()
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return string(buf[:n])
	}
	if greeting := read(); !strings.HasPrefix(greeting, "220 mx.sandview.test ") || !strings.HasSuffix(greeting, "\r\n") {
		t.Fatalf("greeting %q", greeting)
	}
	for _, cmd := range []string{"EHLO client.example.org", "EHLO again.example.org"} {
		if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
			t.Fatal(err)
		}
		reply := read()
		lines := strings.Split(strings.TrimSuffix(reply, "\r\n"), "\r\n")
		if len(lines) < 5 || !strings.HasPrefix(lines[0], "250-Hello ") {
			t.Fatalf("%s: first read %q, want the whole multi-line reply", cmd, reply)
		}
		for _, line := range lines[:len(lines)-1] {
			if !strings.HasPrefix(line, "250-") {
				t.Fatalf("%s: line %q of %q is not a continuation line", cmd, line, reply)
			}
		}
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "250 ") {
			t.Fatalf("%s: the read ends with %q, not with the reply's last line", cmd, last)
		}
	}
	if _, err := c.Write([]byte("NOOP\r\n")); err != nil {
		t.Fatal(err)
	}
	if reply := read(); !strings.HasPrefix(reply, "250 ") || strings.Count(reply, "\r\n") != 1 {
		t.Fatalf("NOOP reply %q", reply)
	}
}

func TestIsContinuationLine(t *testing.T) {
	for line, want := range map[string]bool{
		"250-PIPELINING\r\n":       true,
		"250 SIZE 10\r\n":          false,
		"250-PIPELINING":           false,
		"25x-PIPELINING\r\n":       false,
		"250-A\r\n250-B\r\n":       false,
		"\x16\x03\x01-abc\r\n":     false,
		"":                         false,
		"354-start mail input\r\n": true,
	} {
		if got := isContinuationLine([]byte(line)); got != want {
			t.Errorf("isContinuationLine(%q) = %v, want %v", line, got, want)
		}
	}
}
