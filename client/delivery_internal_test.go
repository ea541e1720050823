package client

import (
	"context"
	"testing"
	"time"
)

func TestLimiterBudgetAndPause(t *testing.T) {
	l := newLimiter(10, 2)
	now := time.Now()
	l.last = now
	for range 2 {
		if l.reserve(now) != 0 {
			t.Fatal("the burst is not available")
		}
	}
	if d := l.reserve(now); d < 90*time.Millisecond || d > 120*time.Millisecond {
		t.Fatalf("third token due in %s, want about 100ms at 10/s", d)
	}
	if l.reserve(now.Add(100*time.Millisecond)) != 0 {
		t.Fatal("token not refilled after 100ms")
	}
	l.pause(time.Hour)
	if d := l.reserve(time.Now().Add(time.Second)); d < 58*time.Minute {
		t.Fatalf("pause not honoured: wait %s", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.wait(ctx); err == nil {
		t.Fatal("wait ignored its context during a pause")
	}
}

func TestDispatcherOrderFinishAndStop(t *testing.T) {
	exited := make(chan struct{})
	d := newDispatcher[int](func() { close(exited) })
	for i := range 5 {
		d.push(i) // held until a function is added
	}
	got := make(chan int, 10)
	d.add(func(v int) { got <- v })
	for want := range 5 {
		if v := <-got; v != want {
			t.Fatalf("got %d, want %d", v, want)
		}
	}
	d.finish()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("finish did not end the dispatcher")
	}
	d.push(9)
	d.stop()
	d.stop()
	if len(got) != 0 {
		t.Fatal("delivered after finish")
	}
}

func TestReconnectDelaysDouble(t *testing.T) {
	c, err := New("http://127.0.0.1:9", "k", WithSSE(5*time.Second, 10, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d := c.dl()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // reconnectWait records the state, then returns at once
	for n := 1; n <= 4; n++ {
		if d.reconnectWait(ctx, n, nil) {
			t.Fatal("reconnectWait ignored its context")
		}
		if st := c.State(); st.Delay != 5*time.Second<<(n-1) || st.Attempt != n {
			t.Fatalf("attempt %d: state %+v", n, st)
		}
	}
}
