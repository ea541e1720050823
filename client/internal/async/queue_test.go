package async

import (
	"context"
	"testing"
	"time"
)

func TestQueueOrderFinishAndStop(t *testing.T) {
	exited := make(chan struct{})
	q := NewQueue[int](func() { close(exited) })
	for i := range 5 {
		q.Push(i) // held until a function is added
	}
	got := make(chan int, 10)
	q.Add(func(v int) { got <- v })
	for want := range 5 {
		if v := <-got; v != want {
			t.Fatalf("got %d, want %d", v, want)
		}
	}
	q.Finish()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("Finish did not end the queue")
	}
	q.Push(9)
	q.Stop()
	q.Stop()
	select {
	case <-q.Done():
	default:
		t.Fatal("Done not closed by Stop")
	}
	if len(got) != 0 {
		t.Fatal("delivered after Finish")
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("a full sleep: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Hour); err != context.Canceled {
		t.Fatalf("a cancelled sleep: %v", err)
	}
	if time.Since(start) > time.Minute {
		t.Fatal("Sleep outlived its context")
	}
	if err := Sleep(ctx, 0); err != context.Canceled {
		t.Fatalf("a zero sleep on a cancelled context: %v", err)
	}
}
