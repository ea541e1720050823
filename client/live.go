package client

import (
	"sync"

	"sandview/client/internal/watch"
)

// live is the client's live-mail side: the watch engine that delivers new
// mail to subscriptions (Inbox.OnNewEmail and Watch, monitors), the
// monitors of every loaded inbox (WatchAll), the connection state and the
// listeners of background errors. Client embeds it, so its methods are
// the client's.
type live struct {
	t   *transport // for the client's context and options
	reg *registry  // the loaded inboxes

	// engine delivers new mail to subscriptions (see engine.go).
	engine *watch.Engine

	mu         sync.Mutex
	followers  map[*Monitor]bool   // monitors of every loaded inbox (WatchAll)
	syncErrors map[int]func(error) // OnSyncError listeners
	nextID     int
}

// closed reports whether the client was closed.
func (l *live) closed() bool { return l.t.ctx.Err() != nil }

// reportSyncError hands a background error to Options.OnSyncError and to
// the OnSyncError listeners; nothing is reported after Close.
func (l *live) reportSyncError(err error) {
	if err == nil || l.t.ctx.Err() != nil {
		return
	}
	if l.t.opts.OnSyncError != nil {
		l.t.opts.OnSyncError(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, push := range l.syncErrors {
		push(err)
	}
}
