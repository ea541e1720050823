package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/server"
)

// TestIntegrationChaosCalls: get, set and disable an inbox's chaos on a
// real server with chaos on; the config comes back normalized.
func TestIntegrationChaosCalls(t *testing.T) {
	_, c := startServer(t, func(cfg *server.Config) { cfg.Chaos = true })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := in.Chaos().Get(ctx); err != nil || cfg.Enabled || cfg.Greylist != nil {
		t.Fatalf("a new inbox's chaos: %+v, %v", cfg, err)
	}
	want, err := model.ChaosSettings{Greylist: "2", Latency: "500ms-3s", For: "10m"}.Config(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got, err := in.Chaos().Set(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Enabled || got.Greylist == nil || got.Greylist.MaxAttempts != 2 || got.Latency == nil || got.Latency.MaxDelayMs != 3000 ||
		got.ExpiresAt == nil || *got.ExpiresAt != *want.ExpiresAt || !got.ActiveAt(time.Now()) {
		t.Fatalf("set answered %+v", got)
	}
	if read, err := in.Chaos().Get(ctx); err != nil || read.Greylist == nil || read.Greylist.TrackBy != model.ChaosTrackIPSender {
		t.Fatalf("get after set: %+v, %v", read, err)
	}
	if err := in.Chaos().Disable(ctx); err != nil {
		t.Fatal(err)
	}
	if cfg, err := in.Chaos().Get(ctx); err != nil || cfg.Enabled || cfg.Greylist != nil {
		t.Fatalf("get after disable: %+v, %v", cfg, err)
	}
	if err := in.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	var notFound *client.InboxNotFoundError
	if _, err := in.Chaos().Get(ctx); !errors.As(err, &notFound) {
		t.Fatalf("chaos of a deleted inbox: %v, want InboxNotFoundError", err)
	}
}

// TestIntegrationChaosDisabledServer: a server with chaos off answers
// every chaos call with ChaosDisabledError, which says how to switch it
// on and unwraps to the 403.
func TestIntegrationChaosDisabledServer(t *testing.T) {
	_, c := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, getErr := in.Chaos().Get(ctx)
	_, setErr := in.Chaos().Set(ctx, model.ChaosConfig{Enabled: true})
	for _, err := range []error{getErr, setErr, in.Chaos().Disable(ctx)} {
		var disabled *client.ChaosDisabledError
		var status *client.APIError
		if !errors.As(err, &disabled) || !errors.As(err, &status) || status.StatusCode != 403 {
			t.Fatalf("error %v, want ChaosDisabledError over a 403", err)
		}
		if want := "chaos is disabled on this server: start it with --chaos"; !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
	}
}

// TestIntegrationChaosActionsReachAMonitor: each greylisting of a
// watched inbox's mail reaches the monitor's OnChaos as the server
// applied it (sandview's notice channel of the stream), with the SMTP
// client refused 451.
func TestIntegrationChaosActionsReachAMonitor(t *testing.T) {
	srv, c := startServer(t, func(cfg *server.Config) { cfg.Chaos = true })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := model.ChaosSettings{Greylist: "100"}.Config(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Chaos().Set(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	m, err := c.WatchInboxes([]*client.Inbox{in})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	actions := make(chan model.ChaosAction, 100)
	m.OnChaos(func(got *client.Inbox, a model.ChaosAction) {
		if got == in {
			actions <- a
		}
	})
	msg := []byte("From: app@example.org\r\nTo: " + in.Address() + "\r\nSubject: retry\r\n\r\nhello\r\n")
	// Until the stream is open nothing is told: send until an action
	// comes (every attempt is refused: the 100th would pass).
	for {
		err := smtpsend.Send(ctx, srv.SMTPAddr(), "app@example.org", []string{in.Address()}, msg)
		if code := smtpsend.Code(err); code != 451 {
			t.Fatalf("SMTP answered %v (code %d), want the greylisting's 451", err, code)
		}
		select {
		case a := <-actions:
			if a.Type != model.ChaosTypeGreylist || a.Remote != "127.0.0.1" || a.Sender != "app@example.org" || a.Attempt < 1 || a.MaxAttempts != 100 {
				t.Fatalf("action %+v", a)
			}
			if want := "greylisted 127.0.0.1 <app@example.org>, attempt "; !strings.HasPrefix(a.Text(), want) {
				t.Fatalf("text %q", a.Text())
			}
			return
		case <-time.After(time.Second):
		case <-ctx.Done():
			t.Fatal("no chaos action reached the monitor")
		}
	}
}
