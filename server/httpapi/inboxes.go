package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"sandview/model"
	"sandview/server/access"
	"sandview/server/chaos"
	"sandview/server/core"
	"sandview/server/store"
)

// refusal is a create-inbox request the API refuses itself (400).
type refusal struct{ msg string }

func (r refusal) Error() string { return r.msg }

func badRequest(format string, args ...any) error {
	return refusal{fmt.Sprintf(format, args...)}
}

// referenceInboxRequest is the create-inbox body of the reference
// profile: the contract's properties and those the official SDKs send.
type referenceInboxRequest struct {
	core.CreateRequest
	Persistence  *string         `json:"persistence"`
	SpamAnalysis *bool           `json:"spamAnalysis"`
	Chaos        json.RawMessage `json:"chaos"`
}

// contractInboxRequest is the create-inbox body of the contract profile.
type contractInboxRequest struct {
	core.CreateRequest
	Chaos json.RawMessage `json:"chaos"`
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

func (a *API) handleCreateInbox(w http.ResponseWriter, r *http.Request) {
	var req contractInboxRequest
	if a.set.Reference {
		var ref referenceInboxRequest
		if !DecodeBody(w, r, &ref) {
			return
		}
		if err := ref.check(a.set.Persistent); err != nil {
			a.writeInboxError(w, err)
			return
		}
		req = contractInboxRequest{ref.CreateRequest, ref.Chaos}
	} else if !DecodeBody(w, r, &req) {
		return
	}
	// The chaos is validated whatever the switch, kept only when it is on.
	var cfg *model.ChaosConfig
	if !IsNull(req.Chaos) {
		parsed, problems := chaos.Parse(req.Chaos, "chaos.")
		if problems != nil {
			writeProblems(w, problems)
			return
		}
		if a.opts.Chaos {
			cfg = &parsed
		}
	}
	in, err := a.core.Inboxes().Create(r.Context(), req.CreateRequest, callerOf(r).p.ID)
	if err != nil {
		a.writeInboxError(w, err)
		return
	}
	if cfg != nil {
		if err := a.core.Chaos().Set(r.Context(), in.Hash, *cfg); err != nil {
			a.log.Error("setting a new inbox's chaos config failed", "error", err)
			WriteError(w, http.StatusInternalServerError, "setting the chaos config failed")
			return
		}
		Audit(a.log, r, "chaos", "inbox", in.Address, "config", chaosSummary(*cfg))
	}
	resp := createdInbox{Inbox: a.inboxResponse(in), Chaos: cfg}
	if a.set.Reference {
		WriteJSON(w, http.StatusCreated, struct {
			createdInbox
			Persistent bool `json:"persistent"`
		}{resp, a.set.Persistent})
		return
	}
	WriteJSON(w, http.StatusCreated, resp)
}

// createdInbox is the create-inbox response: the inbox, with its chaos
// config when one was set.
type createdInbox struct {
	model.Inbox
	Chaos *model.ChaosConfig `json:"chaos,omitempty"`
}

// writeInboxError answers a create-inbox failure.
func (a *API) writeInboxError(w http.ResponseWriter, err error) {
	var refused refusal
	switch {
	case errors.As(err, &refused), errors.Is(err, core.ErrInvalid):
		WriteError(w, http.StatusBadRequest, "%s", err)
		return
	case errors.Is(err, core.ErrConflict):
		WriteError(w, http.StatusConflict, "%s", err)
		return
	}
	a.log.Error("creating an inbox failed", "error", err)
	WriteError(w, http.StatusInternalServerError, "creating the inbox failed")
}

// inboxResponse renders an inbox as created (a snapshot: the registry may
// renew a live inbox's expiry meanwhile).
func (a *API) inboxResponse(in store.Inbox) model.Inbox {
	resp := model.Inbox{
		EmailAddress: in.Address,
		ExpiresAt:    in.ExpiresAt.UTC(),
		InboxHash:    in.Hash,
		Encrypted:    in.Encrypted,
		EmailAuth:    in.EmailAuth,
	}
	if in.Encrypted {
		resp.ServerSigPk = a.core.ServerSigPk()
	}
	return resp
}

func (a *API) handleDeleteInbox(w http.ResponseWriter, r *http.Request) {
	in, answered := a.inboxFor(w, r, access.DeleteInbox, pathAddress(r))
	if answered {
		return
	}
	// No inbox (none, or one hidden from the caller) answers as deleted
	// already.
	if in != nil {
		emails, ok, err := a.core.Inboxes().Delete(r.Context(), in)
		if err != nil {
			a.log.Error("deleting an inbox failed", "error", err)
			WriteError(w, http.StatusInternalServerError, "deleting the inbox failed")
			return
		}
		if ok {
			Audit(a.log, r, "delete", "inbox", in.Address, "emails", emails)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleDeleteAllInboxes deletes every inbox the caller may delete: all
// of them for the server's key and an admin, a member's own (never the
// catch-all).
func (a *API) handleDeleteAllInboxes(w http.ResponseWriter, r *http.Request) {
	if !a.allowed(w, r, access.DeleteAll) {
		return
	}
	inboxes, err := a.core.Inboxes().All(r.Context())
	if err != nil {
		a.log.Error("listing inboxes failed", "error", err)
		WriteError(w, http.StatusInternalServerError, "deleting the inboxes failed")
		return
	}
	who := callerOf(r).p
	deleted, emails := 0, 0
	defer func() { Audit(a.log, r, "delete", "inbox", "*", "inboxes", deleted, "emails", emails) }()
	for _, in := range inboxes {
		if access.Decide(who, access.DeleteInbox, a.target(in)) != access.Allow {
			continue
		}
		n, ok, err := a.core.Inboxes().Delete(r.Context(), in)
		emails += n
		if err != nil {
			a.log.Error("deleting an inbox failed", "error", err)
			WriteError(w, http.StatusInternalServerError, "deleting the inboxes failed after %d", deleted)
			return
		}
		if ok {
			deleted++
		}
	}
	WriteJSON(w, http.StatusOK, model.DeleteAllResponse{Deleted: deleted})
}

// pathAddress is the {email} path segment, lowercased.
func pathAddress(r *http.Request) string {
	return strings.ToLower(strings.TrimSpace(r.PathValue("email")))
}
