package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"sandview/server/store"
)

// testChaos: an inbox's chaos config is kept until replaced and goes
// away with its inbox; greylisting counts attempts per key, starts over
// after the window, forgets a key once it passes and on a sweep.
func testChaos(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	if err := s.PutChaosConfig(ctx, "nobody", []byte(`{}`)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("config of an unknown inbox: %v, want store.ErrNotFound", err)
	}
	inbox := store.Inbox{Address: "c@sandbox.test", Hash: "hc", ExpiresAt: time.Unix(100, 0).UTC(), CreatedAt: time.Unix(1, 0).UTC()}
	if err := s.PutInbox(ctx, inbox); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ChaosConfig(ctx, "hc"); err != nil || got != nil {
		t.Fatalf("config of a new inbox: %q %v, want none", got, err)
	}
	for _, data := range []string{`{"enabled":true}`, `{"enabled":false}`} {
		if err := s.PutChaosConfig(ctx, "hc", []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.ChaosConfig(ctx, "hc"); err != nil || string(got) != data {
			t.Fatalf("config %q %v, want %s", got, err, data)
		}
	}
	if err := s.DeleteInbox(ctx, "hc"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutInbox(ctx, inbox); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ChaosConfig(ctx, "hc"); err != nil || got != nil {
		t.Fatalf("config after the inbox was deleted and made again: %q %v, want none", got, err)
	}

	t0 := time.Unix(1000, 0).UTC()
	attempt := func(key string, at time.Time, wantN int, wantPass bool) {
		t.Helper()
		n, pass, err := s.GreylistAttempt(ctx, key, at, time.Minute, 3)
		if err != nil || n != wantN || pass != wantPass {
			t.Fatalf("greylist %s at %s: %d %v %v, want %d %v", key, at, n, pass, err, wantN, wantPass)
		}
	}
	attempt("k", t0, 1, false)
	attempt("other", t0, 1, false)
	attempt("k", t0.Add(time.Second), 2, false)
	attempt("k", t0.Add(2*time.Second), 3, true)
	attempt("k", t0.Add(3*time.Second), 1, false) // forgotten on passing
	attempt("k", t0.Add(2*time.Minute), 1, false) // past the window: anew
	if err := s.SweepGreylist(ctx, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	attempt("other", t0.Add(2*time.Minute), 1, false) // swept
	attempt("k", t0.Add(2*time.Minute), 2, false)     // kept
}
