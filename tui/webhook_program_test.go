package tui

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/servertest"
	"sandview/server/webhook"
	"sandview/tui/tuitest"
)

// refreshed matches the stats of a webhook that delivered.
var refreshed = regexp.MustCompile(`Stats +[1-9][0-9]* deliver`)

// TestProgramWebhookReceiver runs the real program headless against the
// embedded server (loopback HTTP webhooks allowed): w opens the webhooks
// screen, l creates a webhook to the built-in receiver, a mail sent over
// SMTP must then show as an email.received delivery whose signature
// verifies with the new webhook's secret, and the webhook's stats follow
// without a reload. When the program ends, its webhook is deleted.
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
	counted := make(chan string, 1)
	var lastView atomic.Value
	watch := func(tm tea.Model, msg tea.Msg) tea.Msg {
		view := tuitest.Plain(tm.(App).View().Content)
		if i := strings.Index(view, "✗ the server refused"); i >= 0 {
			select {
			case hookReady <- "error: " + view[i:]:
			default:
			}
		}
		if strings.Contains(view, "verifying with 1") {
			select {
			case hookReady <- "":
			default:
			}
		}
		for _, line := range strings.Split(view, "\n") {
			if strings.Contains(line, "email.received") && strings.Contains(line, "✓ valid") {
				select {
				case received <- view:
				default:
				}
			}
		}
		lastView.Store(view)
		if refreshed.MatchString(view) {
			select {
			case counted <- view:
			default:
			}
		}
		return msg
	}
	keys, typing := io.Pipe()
	defer typing.Close()
	dark := true
	cfg := Config{Client: c, Settings: &Settings{ServerLabel: "test", DarkTheme: &dark}}
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
	if err := smtpsend.Send(context.Background(), srv.SMTPAddr(), "sender@example.com", []string{inbox.Address()}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-received:
	case err := <-done:
		t.Fatalf("program ended early: %v", err)
	case <-ctx.Done():
		t.Fatal("the delivery never reached the model")
	}
	select {
	case <-counted:
	case err := <-done:
		t.Fatalf("program ended early: %v", err)
	case <-ctx.Done():
		t.Fatalf("the webhook's stats never showed the delivery:\n%s", lastView.Load())
	}
	stopProgram(t, cancel, done)
	listCtx, cancelList := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelList()
	list, err := c.Webhooks.ListWebhooks(listCtx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Webhooks) != 0 {
		t.Fatalf("the receiver's webhook outlived the program: %+v", list.Webhooks)
	}
}
