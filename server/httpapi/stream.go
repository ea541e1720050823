package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"sandview/model"
	"sandview/server/access"
	"sandview/server/core"
)

// Event stream tuning.
const (
	// streamBuffer is how many bus events a stream client may fall behind
	// before it is disconnected (it reconnects and re-syncs).
	streamBuffer = 1024
	// streamWriteTimeout bounds one write to a stream client.
	streamWriteTimeout = 10 * time.Second
	// streamBatchBytes bounds the messages written to a stream client
	// with one write while more events wait.
	streamBatchBytes = 256 << 10
)

// noticeJSON renders the deletion notice of an email.deleted or
// inbox.deleted bus event, or the chaos notice of a chaos event.
func noticeJSON(ev core.Event) []byte {
	kind := model.NoticeEmailDeleted
	switch ev.Type {
	case core.EventInboxDeleted:
		kind = model.NoticeInboxDeleted
	case core.EventChaos:
		kind = model.NoticeChaos
	}
	data, _ := json.Marshal(model.StreamNotice{ // strings and numbers only: it cannot fail
		Kind: kind, InboxHash: ev.Inbox.Hash, EmailAddress: ev.Inbox.Address, EmailID: ev.EmailID, Reason: ev.Reason, Chaos: ev.Chaos,
	})
	return data
}

// heartbeat is the keep-alive message of the event stream.
type heartbeat struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
}

// knownHashes drops from wanted the hashes of no live inbox the caller may
// read, and reports whether any is left. Unknown hashes next to known ones
// are named in a log line; with none known the stream is refused, as the
// reference deployment does.
func (a *API) knownHashes(r *http.Request, wanted map[string]bool) bool {
	var unknown []string
	for hash := range wanted {
		// An inbox hidden from the caller is unknown to it.
		if in, ok := a.core.Inboxes().ByHash(r.Context(), hash); !ok || a.verdict(r, access.ReadInbox, in) != access.Allow {
			unknown = append(unknown, hash)
		}
	}
	if len(unknown) == len(wanted) {
		return false
	}
	for _, hash := range unknown {
		delete(wanted, hash)
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		a.log.Info("event stream subscription names unknown inboxes; streaming the known ones", "unknown", strings.Join(unknown, ","))
	}
	return true
}

// handleEvents serves GET /api/events?inboxes=h1,h2: one `data:` message
// per new email of the listed inboxes, and a heartbeat message every
// HeartbeatInterval; with sandview=notices also a sandview.notice message
// per email or inbox of theirs deleted and per chaos action applied to
// mail for them (model.StreamNotice). A
// principal's stream ends when its key is revoked.
func (a *API) handleEvents(w http.ResponseWriter, r *http.Request) {
	query := r.URL.Query()
	if !query.Has("inboxes") {
		WriteError(w, http.StatusBadRequest, "query parameter inboxes is required: a comma-separated list of inbox hashes")
		return
	}
	wanted := make(map[string]bool)
	for _, hash := range strings.Split(query.Get("inboxes"), ",") {
		if hash = strings.TrimSpace(hash); hash != "" {
			wanted[hash] = true
		}
	}
	if len(wanted) == 0 {
		WriteError(w, http.StatusBadRequest, "query parameter inboxes lists no inbox hash")
		return
	}
	if !a.knownHashes(r, wanted) {
		WriteError(w, http.StatusBadRequest, "No matching inbox hashes: none of the inboxes listed exists on this server")
		return
	}
	session, err := sse.Upgrade(w, r)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, "this connection cannot stream events")
		return
	}
	events, cancel := a.core.Events().Subscribe(streamBuffer)
	defer cancel()

	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	control := http.NewResponseController(w)
	// Messages are gathered in out and written with one write and one
	// flush once no other event waits (or out is large): in a burst of
	// mail the client wakes once for many messages, not once for each,
	// and a lone message leaves at once.
	var out bytes.Buffer
	queue := func(data []byte, event sse.EventType) {
		msg := &sse.Message{Type: event}
		msg.AppendData(string(data))
		_, _ = msg.WriteTo(&out) // a bytes.Buffer write never fails
	}
	notices := query.Get(model.StreamNoticesParam) == model.StreamNoticesValue
	noticeEvent := sse.Type(model.StreamNoticeEvent)
	send := func() error {
		_ = control.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := w.Write(out.Bytes()); err != nil {
			return err
		}
		out.Reset()
		return session.Flush()
	}
	// Open the stream at once so the client sees 200 and the headers.
	_ = control.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if err := session.Flush(); err != nil {
		return
	}
	ticker := time.NewTicker(a.set.HeartbeatInterval)
	defer ticker.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-events:
			if !ok {
				return // too slow, or the server is stopping
			}
			if a.revoked(r) {
				return
			}
			switch {
			case !wanted[ev.Inbox.Hash]:
			case ev.Type == model.EventEmailReceived:
				data, err := ev.StreamJSON()
				if err != nil {
					a.log.Error("an email's stream message could not be rendered; not sent", "error", err)
				} else {
					queue(data, sse.EventType{})
				}
			case notices && (ev.Type == model.EventEmailDeleted || ev.Type == core.EventInboxDeleted || ev.Type == core.EventChaos):
				queue(noticeJSON(ev), noticeEvent)
			}
			if out.Len() == 0 || (len(events) > 0 && out.Len() < streamBatchBytes) {
				continue
			}
			if err := send(); err != nil {
				return
			}
		case now := <-ticker.C:
			if a.revoked(r) {
				return
			}
			data, _ := json.Marshal(heartbeat{Type: "heartbeat", Timestamp: core.FormatTime(now)})
			queue(data, sse.EventType{})
			if err := send(); err != nil {
				return
			}
		}
	}
}
