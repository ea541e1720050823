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
	"sandview/client/webhookrecv"
	"sandview/server"
	"sandview/server/servertest"
	"sandview/server/webhook"
)

// TestProgramWebhookReceiver runs the real program headless against the
// embedded server (loopback HTTP webhooks allowed): w opens the webhooks
// view, l creates a webhook to the built-in receiver, a mail sent over
// SMTP must then arrive at the receiver as an email.received delivery
// whose signature verifies with the new webhook's secret.
func TestProgramWebhookReceiver(t *testing.T) {
	srv := servertest.Start(t, func(c *server.Config) {
		w := webhook.DefaultConfig()
		w.AllowLoopbackHTTP = true
		c.Webhooks = &w
	})
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

	hookReady := make(chan string, 1)
	received := make(chan string, 1)
	watch := func(tm tea.Model, msg tea.Msg) tea.Msg {
		m := tm.(Model)
		d := m.hooks.data
		if d.recvErr != "" {
			select {
			case hookReady <- "error: " + d.recvErr:
			default:
			}
		}
		if len(d.recvHooks) > 0 {
			select {
			case hookReady <- "":
			default:
			}
		}
		for _, dl := range d.deliveries {
			if dl.event == "email.received" && dl.signature == webhookrecv.SignatureValid && strings.Contains(dl.body.text, inbox.Address()) {
				select {
				case received <- plain(&m):
				default:
				}
			}
		}
		return msg
	}
	keys, typing := io.Pipe()
	defer typing.Close()
	dark := true
	cfg := Config{Client: c, ServerLabel: "test", DarkTheme: &dark, pollInterval: 50 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, tea.WithInput(keys), tea.WithOutput(io.Discard), tea.WithWindowSize(120, 40), tea.WithFilter(watch))
	}()
	if _, err := io.WriteString(typing, "wl"); err != nil {
		t.Fatal(err)
	}
	select {
	case problem := <-hookReady:
		if problem != "" {
			t.Fatal(problem)
		}
	case err := <-done:
		t.Fatalf("program ended early: %v", err)
	case <-ctx.Done():
		t.Fatal("the receiver's webhook was never created")
	}

	body := fmt.Sprintf("From: sender@example.com\r\nTo: %s\r\nSubject: Hook me\r\n\r\nHi there\r\n", inbox.Address())
	if err := smtp.SendMail(srv.SMTPAddr(), nil, "sender@example.com", []string{inbox.Address()}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	select {
	case view := <-received:
		if !strings.Contains(view, "email.received") || !strings.Contains(view, "✓ valid") {
			t.Fatalf("the model holds the delivery but the view does not show it:\n%s", view)
		}
	case err := <-done:
		t.Fatalf("program ended early: %v", err)
	case <-ctx.Done():
		t.Fatal("the delivery never reached the model")
	}
	stopProgram(t, cancel, done)
}
