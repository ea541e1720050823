package watch

import (
	"context"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"sandview/model"
)

// Deletion notices: sandview's server, asked for them (the client opens
// the stream with model.StreamNoticesParam), also sends a
// model.StreamNoticeEvent message whenever an email or an inbox of a
// watched inbox is deleted, by anyone. An email's deletion is handed to
// the subscribers' Deleted; an inbox's has the inbox listed at once, and
// the server's answer (not found) ends its watch as gone, as any other
// way of learning it does. The notice alone ends it when the listing
// says otherwise: an inbox may live at the same hash again by then (the
// catch-all, which the server creates again within a sweep; a plain
// inbox created again at the address), or the listing may fail, but
// the inbox watched was deleted all the same. Other servers send none,
// and nothing else depends on them.
//
// Chaos notices tell the watchers of an inbox each chaos action its
// mail met (model.NoticeChaos); they are handed to the subscribers'
// Chaos.

// handleNotice handles the data of one sandview.notice message.
func (st *streamer) handleNotice(ctx context.Context, data string) {
	var n model.StreamNotice
	if err := jsonv2.Unmarshal([]byte(data), &n, jsonv1.DefaultOptionsV1()); err != nil {
		st.client.ReportStreamError(fmt.Errorf("the server sent a notice that is not JSON: %w", err))
		return
	}
	st.mu.Lock()
	w := st.watched[n.InboxHash]
	st.mu.Unlock()
	if w == nil {
		return
	}
	switch n.Kind {
	case model.NoticeEmailDeleted:
		st.deleted(w, n.EmailID)
	case model.NoticeChaos:
		if n.Chaos != nil {
			st.chaos(w, *n.Chaos)
		}
	case model.NoticeInboxDeleted:
		deleted := fmt.Errorf("the server deleted the inbox %s (reason %s)", w.inbox.Address(), n.Reason)
		go func() {
			_, err := st.listOrdered(ctx, w.inbox)
			if ctx.Err() != nil || st.goneAfter(w, err) {
				return
			}
			st.markGone(w, deleted)
		}()
	}
}

// deleted tells every subscriber of w that its email id was deleted.
func (s *watchSet) deleted(w *watched, id string) {
	if id == "" {
		return
	}
	s.mu.Lock()
	if s.watched[w.inbox.Hash()] != w {
		s.mu.Unlock()
		return
	}
	var calls []func(string)
	for _, sub := range w.subs {
		if sub.Deleted != nil {
			calls = append(calls, sub.Deleted)
		}
	}
	s.mu.Unlock()
	for _, fn := range calls {
		fn(id)
	}
}

// chaos tells every subscriber of w of a chaos action.
func (s *watchSet) chaos(w *watched, a model.ChaosAction) {
	s.mu.Lock()
	if s.watched[w.inbox.Hash()] != w {
		s.mu.Unlock()
		return
	}
	var calls []func(model.ChaosAction)
	for _, sub := range w.subs {
		if sub.Chaos != nil {
			calls = append(calls, sub.Chaos)
		}
	}
	s.mu.Unlock()
	for _, fn := range calls {
		fn(a)
	}
}
