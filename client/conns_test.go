package client

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"sandview/server/servertest"
)

// isClosed reports whether this process closed c.
func isClosed(c net.Conn) bool {
	return errors.Is(c.SetReadDeadline(time.Time{}), net.ErrClosed)
}

func TestCloseClosesEveryConnectionOfTheClient(t *testing.T) {
	srv := servertest.Start(t)
	c, err := New(srv.URL(), servertest.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in, err := c.CreateInbox(ctx, CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	for c.State().Kind != StateLive {
		if ctx.Err() != nil {
			t.Fatalf("the stream did not open: %s", c.State())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// One connection holds the stream (or is opening it again); the
	// request's is idle once answered.
	if _, err := c.ServerInfo(ctx); err != nil {
		t.Fatal(err)
	}
	c.conns.mu.Lock()
	var open []*conn
	for oc := range c.conns.open {
		open = append(open, oc)
	}
	c.conns.mu.Unlock()
	if len(open) == 0 {
		t.Fatal("no connection open with a stream live and a request answered")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, oc := range open {
		if !isClosed(oc.Conn) {
			t.Errorf("the connection from %s is open after Close", oc.LocalAddr())
		}
	}
}

func TestConnectionDialedAfterCloseIsClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var d net.Dialer
	entered, release := make(chan struct{}), make(chan struct{})
	dialed := make(chan net.Conn, 1)
	s := newConns(func(ctx context.Context, network, address string) (net.Conn, error) {
		close(entered)
		<-release
		nc, err := d.DialContext(ctx, network, address)
		if err == nil {
			dialed <- nc
		}
		return nc, err
	})
	type result struct {
		conn net.Conn
		err  error
	}
	done := make(chan result, 1)
	go func() {
		nc, err := s.dialContext(context.Background(), "tcp", ln.Addr().String())
		done <- result{nc, err}
	}()
	<-entered
	s.closeAll() // the client closes while net/http still dials for a canceled request
	close(release)
	r := <-done
	if !errors.Is(r.err, ErrClientClosed) || r.conn != nil {
		t.Fatalf("a dial finished after closeAll returned (%v, %v), want ErrClientClosed", r.conn, r.err)
	}
	if nc := <-dialed; !isClosed(nc) {
		t.Fatal("the connection dialed after closeAll is open")
	}
	// The service sees the connection end at once (nothing held it).
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	if err := peer.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if n, err := peer.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("the service read (%d, %v) on the connection, want EOF", n, err)
	}
}
