// Package async holds the client's small concurrency helpers: a queue
// that calls its functions with each value in order on a goroutine of its
// own, and a sleep that ends with its context.
package async

import "sync"

// Queue calls its functions with queued values, in order, on a goroutine
// of its own, so a slow function never holds up the code that pushes.
// Values wait while no function is registered. The queue is unbounded:
// nothing is dropped for a slow reader.
type Queue[T any] struct {
	mu        sync.Mutex
	cond      *sync.Cond
	queue     []T
	fns       []func(T)
	stopped   bool
	finishing bool
	done      chan struct{} // closed by Stop
	onExit    func()
}

// NewQueue starts a queue; onExit, when set, runs when its goroutine ends.
func NewQueue[T any](onExit func()) *Queue[T] {
	q := &Queue[T]{done: make(chan struct{}), onExit: onExit}
	q.cond = sync.NewCond(&q.mu)
	go q.loop()
	return q
}

// Push queues v; after Stop or Finish it is dropped.
func (q *Queue[T]) Push(v T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped || q.finishing {
		return
	}
	q.queue = append(q.queue, v)
	q.cond.Signal()
}

// Add registers fn; every value is handed to the functions in the order
// they were added.
func (q *Queue[T]) Add(fn func(T)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.fns = append(q.fns[:len(q.fns):len(q.fns)], fn)
	q.cond.Signal()
}

// Stop drops what is queued and ends the goroutine; no function starts
// after it returns. It may be called any number of times.
func (q *Queue[T]) Stop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		return
	}
	q.stopped = true
	q.queue = nil
	close(q.done)
	q.cond.Broadcast()
}

// Done is closed by Stop.
func (q *Queue[T]) Done() <-chan struct{} { return q.done }

// Finish ends the goroutine once the queue is delivered.
func (q *Queue[T]) Finish() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.finishing = true
	q.cond.Broadcast()
}

func (q *Queue[T]) loop() {
	if q.onExit != nil {
		defer q.onExit()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for !q.stopped && (len(q.queue) == 0 || len(q.fns) == 0) {
			if q.finishing && len(q.queue) == 0 {
				return
			}
			q.cond.Wait()
		}
		if q.stopped {
			return
		}
		v := q.queue[0]
		var zero T
		q.queue[0] = zero
		q.queue = q.queue[1:]
		for _, fn := range q.fns {
			if q.stopped {
				return
			}
			q.mu.Unlock()
			fn(v)
			q.mu.Lock()
		}
	}
}
