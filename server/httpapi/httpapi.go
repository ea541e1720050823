// Package httpapi is the sandbox service's HTTP transport: the API of
// http-interface.md over the core (API: inboxes, emails, sync, server
// info, check-key, the test-email endpoint, the event stream and the
// load balancer's probes), registered on a mux with the webhook engine's
// routes. Every route but the probes takes the server's API key, which may
// do everything, or a principal's (server/access), checked in guard.go:
// a principal sees its own inboxes and the catch-all, and does what its
// role may; the audit trail (Audit) records deletions, webhook changes and
// refusals.
//
// It is also the HTTP plumbing the API and the webhook engine share, so
// that every route reads and answers the same way: it decodes JSON request
// bodies (one size limit, one empty-body rule, one strictness rule for
// properties the target type does not name, one set of 400 messages) and
// writes JSON responses and the interface's error body {statusCode,
// message, error}.
package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"sandview/model"
)

// WriteJSON answers status with v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, "encoding the response failed")
		return
	}
	write(w, status, data)
}

// WriteError answers status with the error body; the message is formatted
// from format and args.
func WriteError(w http.ResponseWriter, status int, format string, args ...any) {
	data, _ := json.Marshal(model.ErrorBody{
		StatusCode: status,
		Message:    model.Messages{fmt.Sprintf(format, args...)},
		Error:      http.StatusText(status),
	})
	write(w, status, data)
}

func write(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
