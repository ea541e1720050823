package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/servertest"
)

// TestProgramReceivesMail runs the real program headless against the
// embedded server, sends a mail over SMTP once it runs and waits until
// the view shows it.
func TestProgramReceivesMail(t *testing.T) {
	srv, c, inbox := serverWithInbox(t)
	dark := true
	cfg := Config{Client: c, Settings: &Settings{ServerLabel: "test", DarkTheme: &dark}}
	cfg.Startup = func(context.Context) error {
		body := fmt.Sprintf("From: sender@example.com\r\nTo: %s\r\nSubject: Hello from SMTP\r\n\r\nHi there\r\n", inbox.Address())
		return smtpsend.Send(context.Background(), srv.SMTPAddr(), "sender@example.com", []string{inbox.Address()}, []byte(body))
	}
	runUntil(t, cfg, "Hello from SMTP")
}

// serverWithInbox starts the embedded server on loopback ports with a
// client of it (closed when the test ends) and a new inbox.
func serverWithInbox(t *testing.T) (*server.Server, *client.Client, *client.Inbox) {
	t.Helper()
	srv := servertest.Start(t)
	c, err := client.New(srv.URL(), srv.APIKey())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inbox, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c, inbox
}

// stopProgram cancels a program run by Run and waits for it to end cleanly.
func stopProgram(t *testing.T, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}
