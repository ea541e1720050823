package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"

	"sandview/server/access"
	"sandview/server/core"
)

// Who may do what: the server's API key may do everything; a principal's
// key (the principals given to New) acts as that principal, under the verdicts of
// access.Decide. Every check of a request against an inbox goes through
// inboxFor (or verdict, where no answer is due), every refusal and
// deletion is written to the audit trail by Audit.

// caller is who sends a request.
type caller struct {
	p access.Principal
	// serverKey tells that it is the server's API key (p is an admin).
	serverKey bool
}

type callerKey struct{}

// hiddenKey marks a request whose inbox the caller may not see (see
// InboxHidden).
type hiddenKey struct{}

func callerOf(r *http.Request) caller {
	c, _ := r.Context().Value(callerKey{}).(caller)
	return c
}

// InboxHidden reports that the inbox a request names is hidden from its
// caller: the webhook routes answer as for a nonexistent inbox.
func InboxHidden(r *http.Request) bool {
	hidden, _ := r.Context().Value(hiddenKey{}).(bool)
	return hidden
}

// Audit writes one line of the audit trail: event, the caller (user, fp,
// role; user=api-key for the server's key) and attrs (key, value pairs).
// Keys and mail content never go into it.
func Audit(log *slog.Logger, r *http.Request, event string, attrs ...any) {
	c := callerOf(r)
	line := []any{"event", event}
	if c.serverKey {
		line = append(line, "user", "api-key")
	} else {
		line = append(line, "user", c.p.Name, "fp", c.p.ID, "role", string(c.p.Role))
	}
	log.Info("audit", append(line, attrs...)...)
}

// requireAPIKey answers 401 unless X-API-Key is the server's key, compared
// in constant time (over digests, so the key's length does not leak
// either), or the key of a principal; the request carries its caller.
func (a *API) requireAPIKey(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(a.core.APIKey()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		values := r.Header.Values(APIKeyHeader)
		if len(values) == 0 || values[0] == "" {
			WriteError(w, http.StatusUnauthorized, "missing X-API-Key header")
			return
		}
		got := sha256.Sum256([]byte(values[0]))
		c := caller{p: access.Principal{Name: "api-key", Role: access.RoleAdmin}, serverKey: true}
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			p, ok := a.principal(values[0])
			if !ok {
				WriteError(w, http.StatusUnauthorized, "invalid API key")
				return
			}
			c = caller{p: p}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
	})
}

// revoked reports that r was made with a principal's key that no longer
// works (a long request, the event stream, ends).
func (a *API) revoked(r *http.Request) bool {
	if callerOf(r).serverKey {
		return false
	}
	_, ok := a.principal(r.Header.Get(APIKeyHeader))
	return !ok
}

func (a *API) principal(key string) (access.Principal, bool) {
	if a.principals == nil {
		return access.Principal{}, false
	}
	return a.principals.Lookup(key)
}

// target is in (nil: none) as the access table sees it.
func (a *API) target(in *core.Inbox) access.Target {
	if in == nil {
		return access.Target{}
	}
	return access.Target{Inbox: true, CatchAll: in.Address == a.core.CatchAll(), Owner: in.Owner}
}

// verdict decides act on in (nil: none) for r's caller; a refusal goes
// into the audit trail.
func (a *API) verdict(r *http.Request, act access.Action, in *core.Inbox) access.Verdict {
	v := access.Decide(callerOf(r).p, act, a.target(in))
	if v != access.Allow {
		inbox := ""
		if in != nil {
			inbox = in.Address
		}
		Audit(a.log, r, "refused", "route", r.Pattern, "action", act.String(), "inbox", inbox, "verdict", v.String())
	}
	return v
}

// allowed decides act on no inbox for r's caller, and answers 403 when
// it is refused.
func (a *API) allowed(w http.ResponseWriter, r *http.Request, act access.Action) bool {
	if a.verdict(r, act, nil) != access.Allow {
		forbid(w, r, act, nil)
		return false
	}
	return true
}

// inboxFor finds the live inbox at address for act by r's caller. It
// returns the inbox when the caller may act on it; nil and false when
// there is none, or none the caller may see (the caller answers as for a
// nonexistent inbox); nil and true when it has answered 403.
func (a *API) inboxFor(w http.ResponseWriter, r *http.Request, act access.Action, address string) (*core.Inbox, bool) {
	in, ok := a.core.Inboxes().ByAddress(address)
	if !ok {
		return nil, false
	}
	switch a.verdict(r, act, in) {
	case access.Allow:
		return in, false
	case access.Hide:
		return nil, false
	}
	forbid(w, r, act, in)
	return nil, true
}

// forbid answers 403 for act on in (nil: none), naming the caller's role.
func forbid(w http.ResponseWriter, r *http.Request, act access.Action, in *core.Inbox) {
	role := callerOf(r).p.Role
	if in == nil {
		WriteError(w, http.StatusForbidden, "%s is not allowed for role %s", act, role)
		return
	}
	WriteError(w, http.StatusForbidden, "%s on %s is not allowed for role %s", act, in.Address, role)
}

// guardWebhooks is the webhook routes' guard: a principal reads and
// changes only the webhooks its role allows on the inboxes it sees; the
// engine answers an inbox hidden from it as a nonexistent one.
func (a *API) guardWebhooks(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		act := access.ChangeWebhooks
		if r.Method == http.MethodGet {
			act = access.ReadWebhooks
		}
		if r.PathValue("email") == "" {
			if r.Method == http.MethodGet && r.URL.Path == "/api/webhooks/templates" {
				act = access.ReadService
			}
			if a.allowed(w, r, act) {
				next.ServeHTTP(w, r)
			}
			return
		}
		in, answered := a.inboxFor(w, r, act, pathAddress(r))
		if answered {
			return
		}
		if in == nil {
			r = r.WithContext(context.WithValue(r.Context(), hiddenKey{}, true))
		}
		next.ServeHTTP(w, r)
	})
}
