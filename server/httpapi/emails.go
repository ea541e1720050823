package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/access"
	"sandview/server/core"
	"sandview/server/store"
)

// emailRoutes are the handlers of an inbox's emails: the API's, on a type
// of their own so that the API type keeps its few roles.
type emailRoutes struct{ *API }

// appendRecord appends an email record as the API serves it: encrypted
// payloads rendered from their stored form, plain ones base64-encoded.
func appendRecord(b []byte, in *core.Inbox, e *store.Email) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = core.AppendJSONString(b, e.ID)
	b = append(b, `,"inboxId":`...)
	b = core.AppendJSONString(b, in.Hash)
	b = append(b, `,"receivedAt":`...)
	b = core.AppendJSONString(b, core.FormatTime(e.ReceivedAt))
	b = append(b, `,"isRead":`...)
	b = strconv.AppendBool(b, e.IsRead)
	if in.Encrypted {
		var err error
		b = append(b, `,"encryptedMetadata":`...)
		if b, err = in.AppendPayload(b, e, e.Metadata); err != nil {
			return nil, err
		}
		if e.Parsed != nil {
			b = append(b, `,"encryptedParsed":`...)
			if b, err = in.AppendPayload(b, e, e.Parsed); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	b = append(b, `,"metadata":"`...)
	b = base64.StdEncoding.AppendEncode(b, e.Metadata)
	if e.Parsed != nil {
		b = append(b, `","parsed":"`...)
		b = base64.StdEncoding.AppendEncode(b, e.Parsed)
	}
	return append(b, `"}`...), nil
}

// writeJSONBytes answers 200 with an already encoded JSON body.
func writeJSONBytes(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// inboxFromPath finds the live inbox of the {email} path segment for act
// (see inboxAt).
func (a *API) inboxFromPath(w http.ResponseWriter, r *http.Request, act access.Action) (*core.Inbox, bool) {
	return a.inboxAt(w, r, act, pathAddress(r))
}

// inboxAt finds the live inbox at address for act, or answers 404 (also
// for an inbox hidden from the caller) or 403.
func (a *API) inboxAt(w http.ResponseWriter, r *http.Request, act access.Action, address string) (*core.Inbox, bool) {
	in, answered := a.inboxFor(w, r, act, address)
	if in == nil {
		if !answered {
			WriteError(w, http.StatusNotFound, "Inbox not found: %s", address)
		}
		return nil, false
	}
	return in, true
}

// storeError answers a store failure: 404 for a missing email or inbox
// (deleted meanwhile), 500 otherwise.
func (a *API) storeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		if id := r.PathValue("id"); id != "" {
			WriteError(w, http.StatusNotFound, "Email not found: %s", id)
			return
		}
		WriteError(w, http.StatusNotFound, "Inbox not found: %s", pathAddress(r))
		return
	}
	a.log.Error("store request failed", "path", r.URL.Path, "error", err)
	WriteError(w, http.StatusInternalServerError, "reading the email failed")
}

func (a emailRoutes) handleSync(w http.ResponseWriter, r *http.Request) {
	in, ok := a.inboxFromPath(w, r, access.ReadInbox)
	if !ok {
		return
	}
	ids, err := a.core.Emails().IDs(r.Context(), in)
	if err != nil {
		a.storeError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, model.SyncStatus{EmailCount: len(ids), EmailsHash: emailsHash(ids)})
}

// emailsHash is base64url(SHA-256(sorted ids joined by "\n")).
func emailsHash(sortedIDs []string) string {
	sum := sha256.Sum256([]byte(strings.Join(sortedIDs, "\n")))
	return crypto.EncodeBase64URL(sum[:])
}

func (a emailRoutes) handleListEmails(w http.ResponseWriter, r *http.Request) {
	in, ok := a.inboxFromPath(w, r, access.ReadInbox)
	if !ok {
		return
	}
	withContent := false
	if v := r.URL.Query().Get("includeContent"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			WriteError(w, http.StatusBadRequest, "includeContent must be true or false, got %q", v)
			return
		}
		withContent = b
	}
	// The first page is read before the status is written, so that a
	// missing inbox still answers 404.
	page := store.Page{Limit: listPageSize}
	first, err := a.listPage(r.Context(), in, withContent, page)
	if err != nil {
		a.storeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if err := a.streamList(r.Context(), w, in, withContent, first); err != nil {
		if r.Context().Err() == nil {
			a.log.Error("listing emails failed", "path", r.URL.Path, "error", err)
		}
		// The status is out: end the response before its JSON ends.
		panic(http.ErrAbortHandler)
	}
}

// Streamed lists: emails are read (and signed) a page at a time and
// written out in chunks, so neither the emails nor the response of a list
// are ever held whole.
const (
	listPageSize  = 64
	listFlushSize = 64 << 10
)

// listedPage is one page of a list: its emails, ready to serve, and the ID
// of the last one read ("" when the list ends with it).
type listedPage struct {
	ready []*store.Email
	last  string
}

// listPage reads one page of an inbox's emails and signs the parsed
// payloads it serves.
func (a emailRoutes) listPage(ctx context.Context, in *core.Inbox, withContent bool, page store.Page) (listedPage, error) {
	ready, last, err := a.core.Emails().Page(ctx, in, withContent, page)
	return listedPage{ready: ready, last: last}, err
}

// streamList writes the JSON array of an inbox's emails, from the first
// page on.
func (a emailRoutes) streamList(ctx context.Context, w io.Writer, in *core.Inbox, withContent bool, first listedPage) error {
	body := append(make([]byte, 0, 2*listFlushSize), '[')
	separator := false
	for page := first; ; {
		for _, e := range page.ready {
			if separator {
				body = append(body, ',')
			}
			separator = true
			var err error
			if body, err = appendRecord(body, in, e); err != nil {
				return err
			}
			if len(body) >= listFlushSize {
				if _, err := w.Write(body); err != nil {
					return err
				}
				body = body[:0]
			}
		}
		if page.last == "" {
			break
		}
		var err error
		if page, err = a.listPage(ctx, in, withContent, store.Page{Limit: listPageSize, Before: page.last}); err != nil {
			return err
		}
	}
	_, err := w.Write(append(body, ']'))
	return err
}

// emailFromPath finds the email of the {email} and {id} path segments with
// the payloads in need signed, or answers 404.
func (a emailRoutes) emailFromPath(w http.ResponseWriter, r *http.Request, need store.Parts) (*core.Inbox, *store.Email, bool) {
	in, ok := a.inboxFromPath(w, r, access.ReadInbox)
	if !ok {
		return nil, nil, false
	}
	e, err := a.core.Emails().Get(r.Context(), in, r.PathValue("id"), need)
	if err != nil {
		a.storeError(w, r, err)
		return nil, nil, false
	}
	return in, e, true
}

func (a emailRoutes) handleGetEmail(w http.ResponseWriter, r *http.Request) {
	in, e, ok := a.emailFromPath(w, r, store.PartParsed)
	if !ok {
		return
	}
	body, err := appendRecord(nil, in, e)
	if err != nil {
		a.storeError(w, r, err)
		return
	}
	writeJSONBytes(w, body)
}

func (a emailRoutes) handleGetRaw(w http.ResponseWriter, r *http.Request) {
	in, e, ok := a.emailFromPath(w, r, store.PartRaw)
	if !ok {
		return
	}
	size := 64 + len(e.Raw)*4/3
	if in.Encrypted {
		size = 64 + in.Sealer().JSONSize(e.Raw)
	}
	body := append(make([]byte, 0, size), `{"id":`...)
	body = core.AppendJSONString(body, e.ID)
	if in.Encrypted {
		var err error
		body = append(body, `,"encryptedRaw":`...)
		if body, err = in.AppendPayload(body, e, e.Raw); err != nil {
			a.storeError(w, r, err)
			return
		}
		body = append(body, '}')
	} else {
		body = append(body, `,"raw":"`...)
		body = base64.StdEncoding.AppendEncode(body, e.Raw)
		body = append(body, `"}`...)
	}
	writeJSONBytes(w, body)
}

func (a emailRoutes) handleMarkRead(w http.ResponseWriter, r *http.Request) {
	in, ok := a.inboxFromPath(w, r, access.MarkRead)
	if !ok {
		return
	}
	if err := a.core.Emails().MarkRead(r.Context(), in, r.PathValue("id")); err != nil {
		a.storeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a emailRoutes) handleDeleteEmail(w http.ResponseWriter, r *http.Request) {
	in, ok := a.inboxFromPath(w, r, access.DeleteEmail)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if err := a.core.Emails().Delete(r.Context(), in, id); err != nil {
		a.storeError(w, r, err)
		return
	}
	Audit(a.log, r, "delete", "inbox", in.Address, "email", id, "emails", 1)
	w.WriteHeader(http.StatusNoContent)
}
