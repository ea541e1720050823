package tui

import (
	"context"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
)

// The live feed: one channel of tea messages the model reads one at a
// time (waitFeed). Over a real client (clientService) it is the client's
// delivery API: Client.WatchAll pushes every new email of every loaded
// inbox (inboxes created or imported later included) as newEmailMsg,
// Client.OnStateChange the connection state as connStateMsg, and
// Client.OnSyncError background errors as statusMsg. When the connection
// recovers (live or polling again after reconnecting or failing polls),
// every inbox is listed again, so lists that failed to load or missed a
// deletion catch up; so is an inbox when it starts delivering (Monitor.
// OnReady), for the mail that arrived before. A service that cannot push (test fakes) is polled
// instead: its SyncStatus every interval, the list when emailsHash changes.

// defaultPollInterval is the polling period for services that cannot push.
const defaultPollInterval = 2 * time.Second

// newEmailMsg is one email delivered live.
type newEmailMsg struct {
	address string
	email   model.Email
}

// pushSource is a service that pushes new mail and connection states.
type pushSource interface {
	// subscribeLive sends feed messages to emit until stop is called.
	subscribeLive(ctx context.Context, emit func(tea.Msg)) (stop func(), err error)
}

// startFeed runs the feed until ctx ends and returns the channel its
// messages arrive on; the channel is closed when the feed ends.
func startFeed(ctx context.Context, svc service, interval time.Duration) <-chan tea.Msg {
	ch := make(chan tea.Msg, 16)
	if src, ok := svc.(pushSource); ok {
		go pushFeed(ctx, src, ch)
	} else {
		go pollLoop(ctx, svc, interval, ch)
	}
	return ch
}

// pushFeed forwards a push source's messages until ctx ends.
func pushFeed(ctx context.Context, src pushSource, ch chan<- tea.Msg) {
	var mu sync.RWMutex
	closed := false
	emit := func(msg tea.Msg) {
		mu.RLock()
		defer mu.RUnlock()
		if closed {
			return
		}
		select {
		case ch <- msg:
		case <-ctx.Done():
		}
	}
	stop, err := src.subscribeLive(ctx, emit)
	if err != nil {
		emit(connStateMsg{kind: connOffline, err: errorText(err)})
	}
	<-ctx.Done()
	if stop != nil {
		stop()
	}
	mu.Lock()
	closed = true
	close(ch)
	mu.Unlock()
}

// subscribeLive subscribes to the client's delivery API.
func (s clientService) subscribeLive(ctx context.Context, emit func(tea.Msg)) (func(), error) {
	mon, err := s.c.WatchAll()
	if err != nil {
		return nil, err
	}
	mon.On(func(in *client.Inbox, e model.Email) {
		emit(newEmailMsg{address: in.Address(), email: e})
	})
	// Mail that arrived before an inbox started delivering is in its list.
	mon.OnReady(func(in *client.Inbox) { s.reload(ctx, in.Address(), emit) })
	troubled := false
	states := s.c.OnStateChange(func(st client.ConnState) {
		emit(connStateMsg(connStateOf(st)))
		healthy := st.Kind == client.StateLive || (st.Kind == client.StatePolling && st.Err == nil)
		if healthy && troubled {
			s.reloadAll(ctx, emit)
		}
		if healthy || st.Kind == client.StateReconnecting || st.Kind == client.StatePolling {
			troubled = !healthy
		}
	})
	errs := s.c.OnSyncError(func(err error) {
		emit(statusMsg{text: errorText(err), level: levelWarn})
	})
	return func() {
		mon.Unsubscribe()
		states.Unsubscribe()
		errs.Unsubscribe()
	}, nil
}

// reloadAll lists every inbox again after the connection recovered.
func (s clientService) reloadAll(ctx context.Context, emit func(tea.Msg)) {
	for _, in := range s.Inboxes() {
		if !in.IsExpired(time.Now()) && ctx.Err() == nil {
			s.reload(ctx, in.EmailAddress, emit)
		}
	}
}

// reload lists one inbox and sends the list.
func (s clientService) reload(ctx context.Context, address string, emit func(tea.Msg)) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	emails, err := s.Emails(rctx, address)
	cancel()
	if ctx.Err() == nil {
		emit(emailsLoadedMsg{address: address, emails: emails, err: err, live: true})
	}
}

// connStateOf translates the client's connection state for the status
// bar; polls failing for a server-wide reason show as offline.
func connStateOf(st client.ConnState) connState {
	cs := connState{attempt: st.Attempt, delay: st.Delay, interval: st.Interval}
	if st.Err != nil {
		cs.err = errorText(st.Err)
	}
	switch st.Kind {
	case client.StateConnecting:
		cs.kind = connConnecting
	case client.StateLive:
		cs.kind = connLive
	case client.StateReconnecting:
		cs.kind = connReconnecting
	case client.StatePolling:
		cs.kind = connPolling
		if st.Err != nil {
			cs.kind = connOffline
		}
	case client.StateClosed:
		cs.kind = connClosed
	default:
		cs.kind = connUnknown
	}
	return cs
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

// pollLoop feeds a service that cannot push by polling it.
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
