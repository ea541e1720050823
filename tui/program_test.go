package tui

import (
	"context"
	"fmt"
	"io"
	"net/smtp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/server/servertest"
	"sandview/tui/tuitest"
)

// TestProgramReceivesMail runs the real program headless against the
// embedded server, sends a mail over SMTP and waits until the view shows
// it.
func TestProgramReceivesMail(t *testing.T) {
	srv := servertest.Start(t)
	c, err := client.New(srv.URL(), srv.APIKey())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inbox, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dark := true
	cfg := Config{Client: c, ServerLabel: "test", DarkTheme: &dark}

	seen := make(chan string, 1)
	watch := func(tm tea.Model, msg tea.Msg) tea.Msg {
		m := tm.(App)
		if view := tuitest.Plain(m.View().Content); strings.Contains(view, "Hello from SMTP") {
			select {
			case seen <- view:
			default:
			}
		}
		return msg
	}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(120, 40), tea.WithFilter(watch))
	}()

	body := fmt.Sprintf("From: sender@example.com\r\nTo: %s\r\nSubject: Hello from SMTP\r\n\r\nHi there\r\n", inbox.Address())
	if err := smtp.SendMail(srv.SMTPAddr(), nil, "sender@example.com", []string{inbox.Address()}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-seen:
	case err := <-done:
		t.Fatalf("program ended early: %v", err)
	case <-ctx.Done():
		t.Fatal("the mail never reached the model")
	}
	stopProgram(t, cancel, done)
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
