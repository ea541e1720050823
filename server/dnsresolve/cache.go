package dnsresolve

import (
	"container/list"
	"sync"
	"time"
)

// question names what a lookup asks: a lowercased, fully qualified name
// and a record type.
type question struct {
	name  string
	qtype uint16
}

// cache keeps answers until they expire, at most max of them, dropping
// the least recently used first. It is safe for concurrent use.
type cache struct {
	mu      sync.Mutex
	entries map[question]*list.Element // of *cached
	recent  *list.List                 // of *cached, most recently used first
	max     int
}

type cached struct {
	q       question
	answer  answer
	expires time.Time
}

func newCache(max int) *cache {
	return &cache{entries: make(map[question]*list.Element), recent: list.New(), max: max}
}

// get returns the answer to q if one is cached and has not expired.
func (c *cache) get(q question, now time.Time) (answer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[q]
	if !ok {
		return answer{}, false
	}
	entry := el.Value.(*cached)
	if !now.Before(entry.expires) {
		c.recent.Remove(el)
		delete(c.entries, q)
		return answer{}, false
	}
	c.recent.MoveToFront(el)
	return entry.answer, true
}

// put keeps a until expires, replacing any earlier answer to q.
func (c *cache) put(q question, a answer, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[q]; ok {
		entry := el.Value.(*cached)
		entry.answer, entry.expires = a, expires
		c.recent.MoveToFront(el)
		return
	}
	for c.recent.Len() >= c.max {
		oldest := c.recent.Back()
		c.recent.Remove(oldest)
		delete(c.entries, oldest.Value.(*cached).q)
	}
	c.entries[q] = c.recent.PushFront(&cached{q: q, answer: a, expires: expires})
}

// len is the number of cached answers, expired ones included.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.recent.Len()
}
