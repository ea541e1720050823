package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"sandview/model"
	"sandview/server/httpapi"
)

// Event stream tuning.
const (
	// streamBuffer is how many bus events a stream client may fall behind
	// before it is disconnected (it reconnects and re-syncs).
	streamBuffer = 1024
	// streamWriteTimeout bounds one write to a stream client.
	streamWriteTimeout = 10 * time.Second
)

// heartbeat is the keep-alive message of the event stream.
type heartbeat struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
}

// handleEvents serves GET /api/events?inboxes=h1,h2: one `data:` message
// per new email of the listed inboxes, and a heartbeat message every
// HeartbeatInterval.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	query := r.URL.Query()
	if !query.Has("inboxes") {
		httpapi.WriteError(w, http.StatusBadRequest, "query parameter inboxes is required: a comma-separated list of inbox hashes")
		return
	}
	wanted := make(map[string]bool)
	for _, hash := range strings.Split(query.Get("inboxes"), ",") {
		if hash = strings.TrimSpace(hash); hash != "" {
			wanted[hash] = true
		}
	}
	if len(wanted) == 0 {
		httpapi.WriteError(w, http.StatusBadRequest, "query parameter inboxes lists no inbox hash")
		return
	}
	session, err := sse.Upgrade(w, r)
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "this connection cannot stream events")
		return
	}
	events, cancel := s.bus.Subscribe(streamBuffer)
	defer cancel()

	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	control := http.NewResponseController(w)
	send := func(data []byte) error {
		_ = control.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		msg := &sse.Message{}
		if data != nil {
			msg.AppendData(string(data))
		}
		if err := session.Send(msg); err != nil {
			return err
		}
		return session.Flush()
	}
	// Open the stream at once so the client sees 200 and the headers.
	_ = control.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if err := session.Flush(); err != nil {
		return
	}
	ticker := time.NewTicker(s.cfg.HeartbeatInterval)
	defer ticker.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-events:
			if !ok {
				return // too slow, or the server is stopping
			}
			if ev.Type != model.EventEmailReceived || !wanted[ev.Inbox.Hash] {
				continue
			}
			if err := send(ev.Stream); err != nil {
				return
			}
		case now := <-ticker.C:
			data, _ := json.Marshal(heartbeat{Type: "heartbeat", Timestamp: formatTime(now)})
			if err := send(data); err != nil {
				return
			}
		}
	}
}
