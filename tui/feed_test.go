package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
)

func TestPollingFeedDeliversNewMail(t *testing.T) {
	live := time.Now().Add(time.Hour)
	svc := newFakeService(
		model.Inbox{EmailAddress: demoAddr, ExpiresAt: live},
		model.Inbox{EmailAddress: plainAddr, ExpiresAt: live},
		model.Inbox{EmailAddress: oldAddr, ExpiresAt: time.Now().Add(-time.Hour)},
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := startFeed(ctx, svc, 10*time.Millisecond)
	next := func() tea.Msg {
		t.Helper()
		select {
		case msg := <-ch:
			return msg
		case <-time.After(10 * time.Second):
			t.Fatal("feed sent nothing")
		}
		return nil
	}
	if st, ok := next().(connStateMsg); !ok || st.kind != connPolling {
		t.Fatalf("first message is not the polling state")
	}
	// The first round loads every live inbox (the expired one is skipped).
	loaded := map[string]bool{}
	for len(loaded) < 2 {
		if msg, ok := next().(emailsLoadedMsg); ok {
			loaded[msg.address] = true
		}
	}
	svc.addEmail(demoAddr, model.Email{ID: "n1", Subject: "Arrived"})
	for {
		msg, ok := next().(emailsLoadedMsg)
		if ok && msg.address == demoAddr && len(msg.emails) == 1 && msg.emails[0].ID == "n1" {
			break
		}
	}
	cancel()
	for range ch {
	}
}

func TestFeedMessagesReachTheModel(t *testing.T) {
	m, _ := newTestModel(t, 120, 40, true)
	ch := make(chan tea.Msg, 1)
	m.feed = ch
	ch <- connStateMsg{kind: connPolling, interval: 2 * time.Second}
	close(ch)
	send(t, m, feedMsg{msg: connStateMsg{kind: connLive}})
	if m.status.conn.kind != connPolling {
		t.Fatalf("next feed message not read: %v", m.status.conn.kind)
	}
}
