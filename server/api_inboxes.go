package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/httpapi"
	"sandview/server/store"
)

// Address rules of the create-inbox request.
const (
	maxAddressLength   = 254
	maxLocalPartLength = 64
	randomLocalLength  = 10
	localAlphabet      = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// createInboxRequest is the create-inbox body; pointers tell absent fields
// from zero values.
type createInboxRequest struct {
	ClientKemPk  *string `json:"clientKemPk"`
	TTL          *int64  `json:"ttl"`
	EmailAddress *string `json:"emailAddress"`
	Encryption   *string `json:"encryption"`
	EmailAuth    *bool   `json:"emailAuth"`
}

// inboxError is a create-inbox failure with its HTTP status.
type inboxError struct {
	status int
	msg    string
}

func (e *inboxError) Error() string { return e.msg }

func badRequest(format string, args ...any) *inboxError {
	return &inboxError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// referenceInboxRequest is the create-inbox body of the reference
// profile: the contract's properties and those the official SDKs send.
type referenceInboxRequest struct {
	createInboxRequest
	Persistence  *string `json:"persistence"`
	SpamAnalysis *bool   `json:"spamAnalysis"`
}

// Values of the reference profile's persistence property.
const (
	persistencePersistent = "persistent"
	persistenceEphemeral  = "ephemeral"
)

// check refuses what the server cannot honour: spam analysis (it does
// none) and a persistent inbox without a data directory. An ephemeral one
// is always granted (with a data directory it outlives restarts, which no
// client can tell from ephemeral).
func (r referenceInboxRequest) check(persistent bool) error {
	if r.SpamAnalysis != nil && *r.SpamAnalysis {
		return badRequest("spamAnalysis true is not supported: this server does no spam analysis (send false or leave it out)")
	}
	if r.Persistence == nil {
		return nil
	}
	switch *r.Persistence {
	case persistenceEphemeral:
		return nil
	case persistencePersistent:
		if persistent {
			return nil
		}
		return badRequest("persistence %q is not available: this server keeps inboxes in memory (start it with a data directory, --data)", *r.Persistence)
	}
	return badRequest("persistence must be %q or %q, got %q", persistencePersistent, persistenceEphemeral, *r.Persistence)
}

func (s *Server) handleCreateInbox(w http.ResponseWriter, r *http.Request) {
	var req createInboxRequest
	if s.cfg.Compat == CompatReference {
		var ref referenceInboxRequest
		if !httpapi.DecodeBody(w, r, &ref) {
			return
		}
		if err := ref.check(s.cfg.DataDir != ""); err != nil {
			s.writeInboxError(w, err)
			return
		}
		req = ref.createInboxRequest
	} else if !httpapi.DecodeBody(w, r, &req) {
		return
	}
	in, err := s.createInbox(r.Context(), req)
	if err != nil {
		s.writeInboxError(w, err)
		return
	}
	resp := s.inboxResponse(in)
	if s.cfg.Compat == CompatReference {
		httpapi.WriteJSON(w, http.StatusCreated, struct {
			model.Inbox
			Persistent bool `json:"persistent"`
		}{resp, s.cfg.DataDir != ""})
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, resp)
}

// writeInboxError answers a create-inbox failure.
func (s *Server) writeInboxError(w http.ResponseWriter, err error) {
	var ie *inboxError
	if errors.As(err, &ie) {
		httpapi.WriteError(w, ie.status, "%s", ie.msg)
		return
	}
	s.log.Error("creating an inbox failed", "error", err)
	httpapi.WriteError(w, http.StatusInternalServerError, "creating the inbox failed")
}

// inboxResponse renders an inbox as created (a snapshot: the registry may
// renew a live inbox's expiry meanwhile, see registry.renew).
func (s *Server) inboxResponse(in store.Inbox) model.Inbox {
	resp := model.Inbox{
		EmailAddress: in.Address,
		ExpiresAt:    in.ExpiresAt.UTC(),
		InboxHash:    in.Hash,
		Encrypted:    in.Encrypted,
		EmailAuth:    in.EmailAuth,
	}
	if in.Encrypted {
		resp.ServerSigPk = s.keyB64
	}
	return resp
}

// createInbox validates a request under the encryption policy and TTL and
// address rules, then registers and stores the inbox; it returns the inbox
// as stored.
func (s *Server) createInbox(ctx context.Context, req createInboxRequest) (store.Inbox, error) {
	ttl := s.cfg.DefaultTTL
	if req.TTL != nil {
		minSeconds, maxSeconds := int64(MinTTL/time.Second), int64(s.cfg.MaxTTL/time.Second)
		if *req.TTL < minSeconds || *req.TTL > maxSeconds {
			return store.Inbox{}, badRequest("ttl must be between %d and %d seconds, got %d", minSeconds, maxSeconds, *req.TTL)
		}
		ttl = time.Duration(*req.TTL) * time.Second
	}
	encrypted, err := s.resolveEncryption(req.Encryption)
	if err != nil {
		return store.Inbox{}, err
	}
	now := s.cfg.Now().UTC().Truncate(time.Millisecond)
	stored := store.Inbox{
		Encrypted: encrypted,
		EmailAuth: req.EmailAuth == nil || *req.EmailAuth,
		CreatedAt: now,
		ExpiresAt: now.Add(ttl),
	}
	if encrypted {
		if req.ClientKemPk == nil || *req.ClientKemPk == "" {
			return store.Inbox{}, badRequest("clientKemPk is required for an encrypted inbox (base64url ML-KEM-768 public key, %d bytes)", crypto.KEMPublicKeySize)
		}
		pub, err := crypto.DecodeBase64URL(*req.ClientKemPk)
		if err != nil {
			return store.Inbox{}, badRequest("clientKemPk is not valid unpadded base64url: %v", err)
		}
		if len(pub) != crypto.KEMPublicKeySize {
			return store.Inbox{}, badRequest("clientKemPk decodes to %d bytes, want %d", len(pub), crypto.KEMPublicKeySize)
		}
		stored.ClientKemPk = pub
		stored.Hash = crypto.InboxHash(pub)
	}
	address, random, err := s.resolveAddress(req.EmailAddress)
	if err != nil {
		return store.Inbox{}, err
	}
	for attempt := 0; ; attempt++ {
		stored.Address = address
		if !encrypted {
			stored.Hash = crypto.PlainInboxHash(address)
		}
		in, err := s.newLiveInbox(stored)
		if err != nil {
			return store.Inbox{}, badRequest("clientKemPk is not a valid ML-KEM-768 public key: %v", err)
		}
		switch err := s.reg.add(in); {
		case err == nil:
			if err := s.store.PutInbox(ctx, stored); err != nil {
				s.reg.remove(in.Hash)
				if errors.Is(err, store.ErrConflict) {
					return store.Inbox{}, &inboxError{status: http.StatusConflict, msg: fmt.Sprintf("inbox %s or its clientKemPk already exists", address)}
				}
				return store.Inbox{}, err
			}
			return stored, nil
		case errors.Is(err, errKeyTaken):
			return store.Inbox{}, &inboxError{status: http.StatusConflict, msg: "an inbox with this clientKemPk already exists"}
		case !random || attempt >= 10:
			return store.Inbox{}, &inboxError{status: http.StatusConflict, msg: fmt.Sprintf("inbox %s already exists", address)}
		}
		address = randomLocalPart() + address[strings.LastIndexByte(address, '@'):]
	}
}

// resolveEncryption applies the encryption policy table.
func (s *Server) resolveEncryption(requested *string) (bool, error) {
	choice := ""
	if requested != nil {
		choice = *requested
	}
	switch choice {
	case "", model.EncryptionEncrypted, model.EncryptionPlain:
	default:
		return false, badRequest("encryption must be %q or %q, got %q", model.EncryptionEncrypted, model.EncryptionPlain, choice)
	}
	policy := s.cfg.EncryptionPolicy
	switch {
	case policy == model.PolicyAlways && choice == model.EncryptionPlain:
		return false, badRequest("the server's encryption policy is %q: plain inboxes cannot be created", policy)
	case policy == model.PolicyNever && choice == model.EncryptionEncrypted:
		return false, badRequest("the server's encryption policy is %q: encrypted inboxes cannot be created", policy)
	case choice == "":
		return policy == model.PolicyAlways || policy == model.PolicyEnabled, nil
	}
	return choice == model.EncryptionEncrypted, nil
}

// resolveAddress turns the requested emailAddress (a full address, a
// domain, or nothing) into a lowercased address in a served domain;
// random reports a generated local part.
func (s *Server) resolveAddress(requested *string) (address string, random bool, err error) {
	want := ""
	if requested != nil {
		want = strings.ToLower(strings.TrimSpace(*requested))
	}
	if len(want) > maxAddressLength {
		return "", false, badRequest("emailAddress is %d characters, at most %d are allowed", len(want), maxAddressLength)
	}
	if want == "" {
		return randomLocalPart() + "@" + s.cfg.Domains[0], true, nil
	}
	local, domain, hasAt := strings.Cut(want, "@")
	if !hasAt {
		local, domain = "", want
	}
	if strings.Contains(domain, "@") {
		return "", false, badRequest("emailAddress %q has more than one @", want)
	}
	if !s.servesDomain(domain) {
		return "", false, badRequest("domain %q is not allowed; allowed domains: %s", domain, strings.Join(s.cfg.Domains, ", "))
	}
	if !hasAt {
		return randomLocalPart() + "@" + domain, true, nil
	}
	if err := checkLocalPart(local); err != nil {
		return "", false, err
	}
	return local + "@" + domain, false, nil
}

// checkLocalPart accepts a dot-atom local part (RFC 5322 atext and dots,
// no leading, trailing or doubled dot).
func checkLocalPart(local string) error {
	if local == "" {
		return badRequest("emailAddress has an empty local part")
	}
	if len(local) > maxLocalPartLength {
		return badRequest("the local part of emailAddress is %d characters, at most %d are allowed", len(local), maxLocalPartLength)
	}
	if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
		return badRequest("the local part %q of emailAddress has a misplaced dot", local)
	}
	for _, r := range local {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(".!#$%&'*+/=?^_`{|}~-", r) {
			continue
		}
		return badRequest("the local part %q of emailAddress contains %q, which is not allowed", local, r)
	}
	return nil
}

func randomLocalPart() string {
	var buf [randomLocalLength]byte
	_, _ = rand.Read(buf[:])
	for i, b := range buf {
		buf[i] = localAlphabet[int(b)%len(localAlphabet)]
	}
	return string(buf[:])
}

// servesDomain reports whether inboxes may live in domain.
func (s *Server) servesDomain(domain string) bool {
	for _, d := range s.cfg.Domains {
		if d == domain {
			return true
		}
	}
	return false
}

func (s *Server) handleDeleteInbox(w http.ResponseWriter, r *http.Request) {
	in, ok := s.reg.byAddr(pathAddress(r), s.cfg.Now())
	if ok {
		if _, err := s.deleteInbox(r.Context(), in); err != nil {
			s.log.Error("deleting an inbox failed", "error", err)
			httpapi.WriteError(w, http.StatusInternalServerError, "deleting the inbox failed")
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleDeleteAllInboxes(w http.ResponseWriter, r *http.Request) {
	deleted := 0
	inboxes, err := s.allInboxes(r.Context())
	if err != nil {
		s.log.Error("listing inboxes failed", "error", err)
		httpapi.WriteError(w, http.StatusInternalServerError, "deleting the inboxes failed")
		return
	}
	for _, in := range inboxes {
		ok, err := s.deleteInbox(r.Context(), in)
		if err != nil {
			s.log.Error("deleting an inbox failed", "error", err)
			httpapi.WriteError(w, http.StatusInternalServerError, "deleting the inboxes failed after %d", deleted)
			return
		}
		if ok {
			deleted++
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, model.DeleteAllResponse{Deleted: deleted})
}

// pathAddress is the {email} path segment, lowercased.
func pathAddress(r *http.Request) string {
	return strings.ToLower(strings.TrimSpace(r.PathValue("email")))
}
