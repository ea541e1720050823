package smtpd

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Refusal is an SMTP refusal the server answered: a message too large,
// an unknown recipient, a limit reached (connections, memory), bad
// credentials. MailFrom and Rcpt are what the client had given when it
// was refused (empty before MAIL or RCPT).
type Refusal struct {
	At       time.Time
	ClientIP string
	MailFrom string
	Rcpt     []string
	Code     int
	Reason   string
}

// String is the refusal on one line: code, client, envelope and reason.
func (r Refusal) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "SMTP %d refused", r.Code)
	if r.MailFrom != "" {
		fmt.Fprintf(&b, " mail from %s", r.MailFrom)
	}
	if len(r.Rcpt) > 0 {
		fmt.Fprintf(&b, " to %s", strings.Join(r.Rcpt, ", "))
	}
	if r.ClientIP != "" {
		fmt.Fprintf(&b, " (client %s)", r.ClientIP)
	}
	b.WriteString(": ")
	b.WriteString(r.Reason)
	return b.String()
}

// refusalLogSize is how many refusals the server keeps.
const refusalLogSize = 200

// refusalLog is a bounded ring of the latest refusals and the functions
// watching new ones.
type refusalLog struct {
	now func() time.Time

	mu       sync.Mutex
	ring     []Refusal
	next     int // where the next refusal goes once the ring is full
	watchers map[int]func(Refusal)
	lastID   int
}

func newRefusalLog(now func() time.Time) *refusalLog {
	return &refusalLog{now: now, watchers: make(map[int]func(Refusal))}
}

// add records a refusal (At set now) and tells the watchers.
func (l *refusalLog) add(r Refusal) {
	r.At = l.now().UTC()
	r.Rcpt = slices.Clone(r.Rcpt)
	l.mu.Lock()
	if len(l.ring) < refusalLogSize {
		l.ring = append(l.ring, r)
	} else {
		l.ring[l.next] = r
		l.next = (l.next + 1) % refusalLogSize
	}
	watchers := make([]func(Refusal), 0, len(l.watchers))
	for _, fn := range l.watchers {
		watchers = append(watchers, fn)
	}
	l.mu.Unlock()
	for _, fn := range watchers {
		fn(r)
	}
}

// list returns the kept refusals, oldest first.
func (l *refusalLog) list() []Refusal {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Refusal, 0, len(l.ring))
	out = append(out, l.ring[l.next:]...)
	return append(out, l.ring[:l.next]...)
}

// Refusals returns the latest SMTP refusals (at most 200), oldest first.
func (s *Server) Refusals() []Refusal { return s.guard.refusals.list() }

// WatchRefusals calls fn with every SMTP refusal from now on, until stop
// is called. fn runs on the SMTP connection's goroutine: it must not
// block (hand the refusal to a buffered channel, dropping it when full).
func (s *Server) WatchRefusals(fn func(Refusal)) (stop func()) {
	l := s.guard.refusals
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastID++
	id := l.lastID
	l.watchers[id] = fn
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.watchers, id)
	}
}
