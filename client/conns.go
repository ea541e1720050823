package client

import (
	"context"
	"net"
	"sync"
)

// dialFunc is the dialer of an http.Transport.
type dialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// conns are the connections of the transport a client made for itself,
// so that Close leaves none open to the service. Closing the transport's
// idle connections is not enough: a request canceled while its
// connection was being dialed lets net/http finish the dial in the
// background and keep the connection as idle, unused, for 90 s. A
// request that queued for a connection after Close's
// CloseIdleConnections (it passed its context check just before the
// cancel) undoes that call's effect on newly idle connections, so such a
// connection stayed open; the service saw a connection that never sent a
// request, and its graceful shutdown waited for it.
type conns struct {
	dial dialFunc

	mu     sync.Mutex
	closed bool
	open   map[*conn]struct{}
}

// newConns tracks the connections dial makes.
func newConns(dial dialFunc) *conns {
	return &conns{dial: dial, open: map[*conn]struct{}{}}
}

// dialContext dials, keeping the connection until it is closed; after
// closeAll it closes the connection it dialed and returns
// ErrClientClosed.
func (s *conns) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	nc, err := s.dial(ctx, network, address)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = nc.Close()
		return nil, ErrClientClosed
	}
	c := &conn{Conn: nc, owner: s}
	s.open[c] = struct{}{}
	return c, nil
}

// closeAll closes every connection open now and each one dialed later.
func (s *conns) closeAll() {
	s.mu.Lock()
	s.closed = true
	open := s.open
	s.open = nil
	s.mu.Unlock()
	for c := range open {
		_ = c.Conn.Close()
	}
}

// conn is a connection conns keeps until it is closed.
type conn struct {
	net.Conn
	owner *conns
}

// Close closes the connection and forgets it.
func (c *conn) Close() error {
	c.owner.mu.Lock()
	delete(c.owner.open, c)
	c.owner.mu.Unlock()
	return c.Conn.Close()
}
