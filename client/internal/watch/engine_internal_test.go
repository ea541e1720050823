package watch

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

func TestReconnectDelaysDouble(t *testing.T) {
	ctx, closeClient := context.WithCancel(context.Background())
	defer closeClient()
	e := New(ctx, nil, Config{ReconnectInterval: 5 * time.Second, MaxReconnectAttempts: 10})
	waitCtx, cancel := context.WithCancel(context.Background())
	cancel() // reconnectWait records the state, then returns at once
	for n := 1; n <= 4; n++ {
		if e.streamer.reconnectWait(waitCtx, n, nil) {
			t.Fatal("reconnectWait ignored its context")
		}
		if st := e.State(); st.Delay != 5*time.Second<<(n-1) || st.Attempt != n || st.Kind != StateReconnecting {
			t.Fatalf("attempt %d: state %+v", n, st)
		}
	}
	closeClient()
	deadline := time.Now().Add(5 * time.Second)
	for e.State().Kind != StateClosed {
		if time.Now().After(deadline) {
			t.Fatalf("state %s after the client's context ended", e.State())
		}
		time.Sleep(time.Millisecond)
	}
	e.states.set(State{Kind: StateLive})
	if e.State().Kind != StateClosed {
		t.Fatal("a closed engine changed its state")
	}
}

func TestReconnectDelayCapAndJitter(t *testing.T) {
	e := New(context.Background(), nil, Config{ReconnectInterval: time.Second, MaxReconnectDelay: 30 * time.Second, ReconnectJitter: 0.3})
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for n, d := range want {
		if got := e.streamer.reconnectDelay(n+1, 0); got != d {
			t.Errorf("attempt %d: %s, want %s", n+1, got, d)
		}
		if got, low := e.streamer.reconnectDelay(n+1, 0.999), time.Duration(0.7*float64(d)); got < low || got > d {
			t.Errorf("attempt %d with jitter: %s, want within [%s, %s]", n+1, got, low, d)
		}
	}
	uncapped := New(context.Background(), nil, Config{ReconnectInterval: 5 * time.Second})
	if got := uncapped.streamer.reconnectDelay(5, 0.5); got != 80*time.Second {
		t.Errorf("the contract's defaults changed: attempt 5 waits %s, want 80s", got)
	}
	if got := uncapped.streamer.reconnectDelay(40, 0); got != maxReconnectDelay {
		t.Errorf("attempt 40 waits %s, want the %s bound", got, maxReconnectDelay)
	}
}
