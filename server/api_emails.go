package server

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/store"
)

// emailRecord is an email record on the wire: encrypted payloads are
// embedded as stored, plain ones base64-encoded.
type emailRecord struct {
	ID                string          `json:"id"`
	InboxID           string          `json:"inboxId"`
	ReceivedAt        string          `json:"receivedAt"`
	IsRead            bool            `json:"isRead"`
	EncryptedMetadata json.RawMessage `json:"encryptedMetadata,omitempty"`
	EncryptedParsed   json.RawMessage `json:"encryptedParsed,omitempty"`
	Metadata          string          `json:"metadata,omitempty"`
	Parsed            string          `json:"parsed,omitempty"`
}

// rawRecord is the answer to GET .../raw.
type rawRecord struct {
	ID           string          `json:"id"`
	EncryptedRaw json.RawMessage `json:"encryptedRaw,omitempty"`
	Raw          string          `json:"raw,omitempty"`
}

func recordOf(in *liveInbox, e *store.Email) emailRecord {
	rec := emailRecord{ID: e.ID, InboxID: in.Hash, ReceivedAt: formatTime(e.ReceivedAt), IsRead: e.IsRead}
	if in.Encrypted {
		rec.EncryptedMetadata = e.Metadata
		if e.Parsed != nil {
			rec.EncryptedParsed = e.Parsed
		}
		return rec
	}
	rec.Metadata = base64.StdEncoding.EncodeToString(e.Metadata)
	if e.Parsed != nil {
		rec.Parsed = base64.StdEncoding.EncodeToString(e.Parsed)
	}
	return rec
}

// inboxFromPath finds the live inbox of the {email} path segment, or
// answers 404.
func (s *Server) inboxFromPath(w http.ResponseWriter, r *http.Request) (*liveInbox, bool) {
	address := pathAddress(r)
	in, ok := s.reg.byAddr(address, s.cfg.Now())
	if !ok {
		writeError(w, http.StatusNotFound, "Inbox not found: %s", address)
		return nil, false
	}
	return in, true
}

// storeError answers a store failure: 404 for a missing email or inbox
// (deleted meanwhile), 500 otherwise.
func (s *Server) storeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		if id := r.PathValue("id"); id != "" {
			writeError(w, http.StatusNotFound, "Email not found: %s", id)
			return
		}
		writeError(w, http.StatusNotFound, "Inbox not found: %s", pathAddress(r))
		return
	}
	s.log.Error("store request failed", "path", r.URL.Path, "error", err)
	writeError(w, http.StatusInternalServerError, "reading the store failed")
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
	writeJSON(w, http.StatusOK, model.SyncStatus{EmailCount: len(ids), EmailsHash: emailsHash(ids)})
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
			writeError(w, http.StatusBadRequest, "includeContent must be true or false, got %q", v)
			return
		}
		withContent = b
	}
	emails, err := s.store.Emails(r.Context(), in.Hash, withContent)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	records := make([]emailRecord, len(emails))
	for i, e := range emails {
		records[i] = recordOf(in, e)
	}
	writeJSON(w, http.StatusOK, records)
}

func (s *Server) emailFromPath(w http.ResponseWriter, r *http.Request) (*liveInbox, *store.Email, bool) {
	in, ok := s.inboxFromPath(w, r)
	if !ok {
		return nil, nil, false
	}
	e, err := s.store.Email(r.Context(), store.EmailKey{InboxHash: in.Hash, ID: r.PathValue("id")})
	if err != nil {
		s.storeError(w, r, err)
		return nil, nil, false
	}
	return in, e, true
}

func (s *Server) handleGetEmail(w http.ResponseWriter, r *http.Request) {
	in, e, ok := s.emailFromPath(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, recordOf(in, e))
}

func (s *Server) handleGetRaw(w http.ResponseWriter, r *http.Request) {
	in, e, ok := s.emailFromPath(w, r)
	if !ok {
		return
	}
	rec := rawRecord{ID: e.ID}
	if in.Encrypted {
		rec.EncryptedRaw = e.Raw
	} else {
		rec.Raw = base64.StdEncoding.EncodeToString(e.Raw)
	}
	writeJSON(w, http.StatusOK, rec)
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
