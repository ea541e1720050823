package tui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
)

// TEMPORARY live feed — swap for the delivery API (⟨D⟩) when it exists:
// subscribe with Client.WatchInboxes / Inbox.OnNewEmail and send
// newEmailMsg for each email, and Client.OnStateChange sending connStateMsg
// for each state, into the same channel. Until then this polls every
// inbox's SyncStatus and refetches the list when emailsHash changes.

// defaultPollInterval is the polling period of the temporary feed.
const defaultPollInterval = 2 * time.Second

// newEmailMsg is one email delivered live (the ⟨D⟩ subscription's message).
type newEmailMsg struct {
	address string
	email   model.Email
}

// startFeed runs the feed until ctx ends and returns the channel its
// messages arrive on.
func startFeed(ctx context.Context, svc service, interval time.Duration) <-chan tea.Msg {
	ch := make(chan tea.Msg, 16)
	go pollLoop(ctx, svc, interval, ch)
	return ch
}

// waitFeed is the Cmd that delivers the next feed message.
func waitFeed(ch <-chan tea.Msg) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return feedMsg{msg: msg}
	}
}

// pollLoop is the temporary polling strategy.
func pollLoop(ctx context.Context, svc service, interval time.Duration, ch chan<- tea.Msg) {
	defer close(ch)
	send := func(msg tea.Msg) bool {
		select {
		case ch <- msg:
			return true
		case <-ctx.Done():
			return false
		}
	}
	hashes := map[string]string{}
	state := connState{kind: connPolling, interval: interval}
	if !send(connStateMsg(state)) {
		return
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		var failure error
		seen := map[string]bool{}
		for _, in := range svc.Inboxes() {
			addr := strings.ToLower(in.EmailAddress)
			seen[addr] = true
			if in.IsExpired(time.Now()) {
				continue
			}
			rctx, cancel := context.WithTimeout(ctx, requestTimeout)
			status, err := svc.SyncStatus(rctx, in.EmailAddress)
			if err != nil {
				cancel()
				failure = err
				continue
			}
			if old, ok := hashes[addr]; ok && old == status.EmailsHash {
				cancel()
				continue
			}
			emails, err := svc.Emails(rctx, in.EmailAddress)
			cancel()
			if emails == nil && err != nil {
				failure = err
				continue
			}
			hashes[addr] = status.EmailsHash
			if !send(emailsLoadedMsg{address: in.EmailAddress, emails: emails, err: err}) {
				return
			}
		}
		for addr := range hashes {
			if !seen[addr] {
				delete(hashes, addr)
			}
		}
		next := connState{kind: connPolling, interval: interval}
		if failure != nil {
			next = connState{kind: connOffline, err: errorText(failure)}
		}
		if next != state {
			state = next
			if !send(connStateMsg(state)) {
				return
			}
		}
		timer.Reset(interval)
	}
}
