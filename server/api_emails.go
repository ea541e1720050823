package server

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/httpapi"
	"sandview/server/store"
)

// appendRecord appends an email record as the API serves it: encrypted
// payloads embedded as stored, plain ones base64-encoded.
func appendRecord(b []byte, in *liveInbox, e *store.Email) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"inboxId":`...)
	b = appendJSONString(b, in.Hash)
	b = append(b, `,"receivedAt":`...)
	b = appendJSONString(b, formatTime(e.ReceivedAt))
	b = append(b, `,"isRead":`...)
	b = strconv.AppendBool(b, e.IsRead)
	if in.Encrypted {
		b = append(b, `,"encryptedMetadata":`...)
		b = append(b, e.Metadata...)
		if e.Parsed != nil {
			b = append(b, `,"encryptedParsed":`...)
			b = append(b, e.Parsed...)
		}
		return append(b, '}')
	}
	b = append(b, `,"metadata":"`...)
	b = base64.StdEncoding.AppendEncode(b, e.Metadata)
	if e.Parsed != nil {
		b = append(b, `","parsed":"`...)
		b = base64.StdEncoding.AppendEncode(b, e.Parsed)
	}
	return append(b, `"}`...)
}

// writeJSONBytes answers 200 with an already encoded JSON body.
func writeJSONBytes(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// inboxFromPath finds the live inbox of the {email} path segment, or
// answers 404.
func (s *Server) inboxFromPath(w http.ResponseWriter, r *http.Request) (*liveInbox, bool) {
	address := pathAddress(r)
	in, ok := s.reg.byAddr(address, s.cfg.Now())
	if !ok {
		httpapi.WriteError(w, http.StatusNotFound, "Inbox not found: %s", address)
		return nil, false
	}
	return in, true
}

// storeError answers a store failure: 404 for a missing email or inbox
// (deleted meanwhile), 500 otherwise.
func (s *Server) storeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		if id := r.PathValue("id"); id != "" {
			httpapi.WriteError(w, http.StatusNotFound, "Email not found: %s", id)
			return
		}
		httpapi.WriteError(w, http.StatusNotFound, "Inbox not found: %s", pathAddress(r))
		return
	}
	s.log.Error("store request failed", "path", r.URL.Path, "error", err)
	httpapi.WriteError(w, http.StatusInternalServerError, "reading the email failed")
}

func (s *Server) handleSync(w http.ResponseWriter, r *http.Request) {
	in, ok := s.inboxFromPath(w, r)
	if !ok {
		return
	}
	ids, err := s.store.IDs(r.Context(), in.Hash)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, model.SyncStatus{EmailCount: len(ids), EmailsHash: emailsHash(ids)})
}

// emailsHash is base64url(SHA-256(sorted ids joined by "\n")).
func emailsHash(sortedIDs []string) string {
	sum := sha256.Sum256([]byte(strings.Join(sortedIDs, "\n")))
	return crypto.EncodeBase64URL(sum[:])
}

func (s *Server) handleListEmails(w http.ResponseWriter, r *http.Request) {
	in, ok := s.inboxFromPath(w, r)
	if !ok {
		return
	}
	withContent := false
	if v := r.URL.Query().Get("includeContent"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			httpapi.WriteError(w, http.StatusBadRequest, "includeContent must be true or false, got %q", v)
			return
		}
		withContent = b
	}
	emails, err := s.store.Emails(r.Context(), in.Hash, withContent)
	if err == nil && withContent {
		emails, err = s.signer.readyAll(r.Context(), in, emails, store.PartParsed)
	}
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	size := 2
	for _, e := range emails {
		size += 128 + len(e.Metadata)*4/3 + len(e.Parsed)*4/3
	}
	body := append(make([]byte, 0, size), '[')
	for i, e := range emails {
		if i > 0 {
			body = append(body, ',')
		}
		body = appendRecord(body, in, e)
	}
	writeJSONBytes(w, append(body, ']'))
}

// emailFromPath finds the email of the {email} and {id} path segments with
// the payloads in need signed, or answers 404.
func (s *Server) emailFromPath(w http.ResponseWriter, r *http.Request, need store.Parts) (*liveInbox, *store.Email, bool) {
	in, ok := s.inboxFromPath(w, r)
	if !ok {
		return nil, nil, false
	}
	e, err := s.store.Email(r.Context(), store.EmailKey{InboxHash: in.Hash, ID: r.PathValue("id")})
	if err == nil {
		e, err = s.signer.ready(r.Context(), in, e, need)
	}
	if err != nil {
		s.storeError(w, r, err)
		return nil, nil, false
	}
	return in, e, true
}

func (s *Server) handleGetEmail(w http.ResponseWriter, r *http.Request) {
	in, e, ok := s.emailFromPath(w, r, store.PartParsed)
	if !ok {
		return
	}
	writeJSONBytes(w, appendRecord(nil, in, e))
}

func (s *Server) handleGetRaw(w http.ResponseWriter, r *http.Request) {
	in, e, ok := s.emailFromPath(w, r, store.PartRaw)
	if !ok {
		return
	}
	body := append(make([]byte, 0, 64+len(e.Raw)*4/3), `{"id":`...)
	body = appendJSONString(body, e.ID)
	if in.Encrypted {
		body = append(body, `,"encryptedRaw":`...)
		body = append(body, e.Raw...)
		body = append(body, '}')
	} else {
		body = append(body, `,"raw":"`...)
		body = base64.StdEncoding.AppendEncode(body, e.Raw)
		body = append(body, `"}`...)
	}
	writeJSONBytes(w, body)
}

func (s *Server) handleMarkRead(w http.ResponseWriter, r *http.Request) {
	in, ok := s.inboxFromPath(w, r)
	if !ok {
		return
	}
	if err := s.store.MarkRead(r.Context(), store.EmailKey{InboxHash: in.Hash, ID: r.PathValue("id")}); err != nil {
		s.storeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleDeleteEmail(w http.ResponseWriter, r *http.Request) {
	in, ok := s.inboxFromPath(w, r)
	if !ok {
		return
	}
	if err := s.deleteEmail(r.Context(), in, r.PathValue("id")); err != nil {
		s.storeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
