package pgtest

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to the server on loopback, and can lose
// the answer to one commit, which a real server never does on its own:
// armed with a marker (LoseAnswer), it forwards a client's messages up to
// the Sync after the first message carrying the marker, then closes that
// client's connection, so the client never hears the answer, while the
// server goes on: the proxy reads the server's answers to the end of the
// transaction (ReadyForQuery) before it closes the server's side.
//
// It speaks only the protocol's plain framing: clients connect with
// sslmode=disable (URL does so).
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	marker []byte        // nil: not armed
	fired  chan struct{} // closed once the answer was lost
	// thenRefuse makes the marker start refusing; refusing cuts every
	// new connection at once.
	thenRefuse, refusing bool
	conns                map[net.Conn]bool
	wg                   sync.WaitGroup
}

// Proxy starts a proxy in front of the server; it stops when t ends.
func (s *Server) Proxy(t testing.TB) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: proxy: %v", err)
	}
	p := &Proxy{ln: ln, target: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), conns: map[net.Conn]bool{}}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

// URL is rawURL (a URL of this package's server) through the proxy.
func (p *Proxy) URL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic("pgtest: a URL of the server does not parse: " + err.Error())
	}
	u.Host = p.ln.Addr().String()
	q := u.Query()
	q.Set("sslmode", "disable")
	u.RawQuery = q.Encode()
	return u.String()
}

// LoseAnswer arms the proxy: the next transaction a client sends with a
// message carrying marker (a query's text or a parameter's bytes) reaches
// the server whole, and its client's connection is closed before any
// answer. The channel is closed when the marker is seen.
func (p *Proxy) LoseAnswer(marker []byte) <-chan struct{} {
	return p.arm(marker, false)
}

// LoseAnswerThenRefuse is LoseAnswer, and from the moment the marker is
// seen the database is out of reach: every other connection is cut, and
// every new one at once, until Admit (the connection of the lost answer
// still gets to the end of its transaction).
func (p *Proxy) LoseAnswerThenRefuse(marker []byte) <-chan struct{} {
	return p.arm(marker, true)
}

// Admit ends the refusal LoseAnswerThenRefuse began.
func (p *Proxy) Admit() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refusing = false
}

func (p *Proxy) arm(marker []byte, thenRefuse bool) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marker = bytes.Clone(marker)
	p.thenRefuse = thenRefuse
	p.fired = make(chan struct{})
	return p.fired
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refusing := p.refusing
		p.mu.Unlock()
		if refusing {
			_ = client.Close()
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !p.track(client, server) {
			return
		}
		p.wg.Go(func() { p.forward(client, server) })
	}
}

// track remembers a connection pair for close; false once closed.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

func (p *Proxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}

// forward copies one connection both ways until either side ends.
func (p *Proxy) forward(client, server net.Conn) {
	lost := make(chan struct{}) // closed when this connection's answer is to be lost
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.answers(server, client, lost)
		_ = client.Close() // the server's side ended
	}()
	p.requests(client, server, lost)
	_ = client.Close() // the client has gone, or hears no answer
	select {
	case <-lost: // the server's side ends with its transaction
	default:
		_ = server.Close()
	}
	<-done
	_ = server.Close()
}

// requests forwards the client's messages. Once a message carries the
// armed marker, lost is closed (no answer reaches the client from then
// on), and after the Sync that ends that transaction it returns.
func (p *Proxy) requests(client, server net.Conn, lost chan struct{}) {
	// The startup message has no type byte.
	var size [4]byte
	if _, err := io.ReadFull(client, size[:]); err != nil {
		return
	}
	startup := make([]byte, int(binary.BigEndian.Uint32(size[:]))-4)
	if _, err := io.ReadFull(client, startup); err != nil {
		return
	}
	if _, err := server.Write(append(size[:], startup...)); err != nil {
		return
	}
	primed := false
	var header [5]byte
	for {
		if _, err := io.ReadFull(client, header[:]); err != nil {
			return
		}
		body := make([]byte, int(binary.BigEndian.Uint32(header[1:]))-4)
		if _, err := io.ReadFull(client, body); err != nil {
			return
		}
		if !primed && p.takeMarker(body, lost, client, server) {
			primed = true
		}
		if _, err := server.Write(append(header[:], body...)); err != nil {
			return
		}
		if primed && header[0] == 'S' {
			return
		}
	}
}

// takeMarker reports whether body, on the connection of client and
// server, carries the armed marker; if so it disarms the proxy, closes
// lost and the armed channel, and begins a refusal when asked to.
func (p *Proxy) takeMarker(body []byte, lost chan struct{}, client, server net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.marker == nil || !bytes.Contains(body, p.marker) {
		return false
	}
	p.marker = nil
	close(lost)
	close(p.fired)
	if p.thenRefuse {
		p.refusing = true
		for c := range p.conns {
			if c != client && c != server {
				_ = c.Close()
				delete(p.conns, c)
			}
		}
	}
	return true
}

// answers forwards the server's messages to the client until lost is
// closed; then it drops them, and ends after the next ReadyForQuery.
func (p *Proxy) answers(server, client net.Conn, lost chan struct{}) {
	var header [5]byte
	for {
		if _, err := io.ReadFull(server, header[:]); err != nil {
			return
		}
		body := make([]byte, int(binary.BigEndian.Uint32(header[1:]))-4)
		if _, err := io.ReadFull(server, body); err != nil {
			return
		}
		select {
		case <-lost:
			if header[0] == 'Z' {
				return
			}
			continue
		default:
		}
		if _, err := client.Write(append(header[:], body...)); err != nil {
			return
		}
	}
}
