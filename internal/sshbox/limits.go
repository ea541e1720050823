package sshbox

import (
	"fmt"
	"sync"
)

// limiter counts the sessions open, per user and in total.
type limiter struct {
	max, perUser int

	mu     sync.Mutex
	total  int
	byUser map[string]int
	closed bool
	idle   chan struct{} // made by close; closed when total reaches 0
}

func newLimiter(max, perUser int) *limiter {
	return &limiter{max: max, perUser: perUser, byUser: map[string]int{}}
}

// acquire takes a session slot for user, or says which limit is reached;
// release gives it back.
func (l *limiter) acquire(user string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return nil, fmt.Errorf("the box is shutting down")
	case l.total >= l.max:
		return nil, fmt.Errorf("the box has %d sessions open, its limit: try again later", l.total)
	case l.byUser[user] >= l.perUser:
		return nil, fmt.Errorf("your key has %d sessions open, the limit per key: close one first", l.byUser[user])
	}
	l.total++
	l.byUser[user]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.total--
			if l.byUser[user]--; l.byUser[user] == 0 {
				delete(l.byUser, user)
			}
			if l.total == 0 && l.idle != nil {
				close(l.idle)
				l.idle = nil
			}
		})
	}, nil
}

// close refuses sessions from now on and returns a channel closed once
// none is open.
func (l *limiter) close() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	idle := make(chan struct{})
	if l.total == 0 {
		close(idle)
	} else {
		l.idle = idle
	}
	return idle
}
