// Package access decides what a principal (a user of a shared sandbox,
// such as one SSH key of `serve --ssh`) may do with which inbox: roles,
// actions and the one table of verdicts, and the keyring of the API keys
// that act as principals. It is pure: no I/O, no clock; the HTTP API
// enforces its verdicts (server/httpapi).
//
// A principal sees the inboxes it owns (created with its key) and the
// catch-all; every other inbox is hidden from it, answered as if it did
// not exist. An admin principal sees and may do everything, as the
// server's own API key does.
package access

import (
	"fmt"
	"strings"
)

// Role is a principal's access level.
type Role string

// The roles, from the least to the most powerful.
const (
	// RoleViewer reads its own inboxes and the catch-all, creates and
	// deletes its own inboxes and marks mail read; it deletes no shared
	// mail and changes no webhook.
	RoleViewer Role = "viewer"
	// RoleMember (the default) may also delete mail in the catch-all,
	// delete all its own inboxes at once and manage the webhooks of its
	// own inboxes.
	RoleMember Role = "member"
	// RoleAdmin may do everything, on every inbox.
	RoleAdmin Role = "admin"
)

// ParseRole reads a role's name (case and surrounding space ignored); ""
// is RoleMember.
func ParseRole(s string) (Role, error) {
	switch r := Role(strings.ToLower(strings.TrimSpace(s))); r {
	case "":
		return RoleMember, nil
	case RoleViewer, RoleMember, RoleAdmin:
		return r, nil
	}
	return "", fmt.Errorf("unknown role %q: want %s, %s or %s", s, RoleViewer, RoleMember, RoleAdmin)
}

// Principal is a user the service knows by an API key of its own.
type Principal struct {
	// ID names it for good: the SSH key's fingerprint ("SHA256:…"). An
	// inbox's owner is its ID.
	ID string
	// Name is a display name (logs).
	Name string
	Role Role
}

// Action is what a request does.
type Action int

// The actions. Those on an inbox name it in a Target; the others take
// Target{} (no inbox).
const (
	// ReadInbox reads an inbox: sync, list, get, raw, its event stream.
	ReadInbox Action = iota
	// MarkRead marks an email read.
	MarkRead
	// DeleteEmail deletes one email.
	DeleteEmail
	// DeleteInbox deletes one inbox (one of a delete-all too).
	DeleteInbox
	// DeleteAll deletes the inboxes at once (those DeleteInbox allows).
	DeleteAll
	// CreateInbox creates an inbox (no target).
	CreateInbox
	// SendTest sends a test email to an inbox.
	SendTest
	// ReadWebhooks lists or reads webhooks (of an inbox, or global).
	ReadWebhooks
	// ChangeWebhooks creates, updates, deletes, tests or rotates webhooks.
	ChangeWebhooks
	// ReadService reads what concerns no inbox: server info, the key
	// check, the webhook templates.
	ReadService
	// ReadChaos reads an inbox's chaos config.
	ReadChaos
	// ChangeChaos sets or clears an inbox's chaos config.
	ChangeChaos
)

var actionNames = [...]string{
	ReadInbox: "read inbox", MarkRead: "mark read", DeleteEmail: "delete email",
	DeleteInbox: "delete inbox", DeleteAll: "delete all inboxes", CreateInbox: "create inbox",
	SendTest: "send test email", ReadWebhooks: "read webhooks", ChangeWebhooks: "change webhooks",
	ReadService: "read service", ReadChaos: "read chaos", ChangeChaos: "change chaos",
}

func (a Action) String() string {
	if a < 0 || int(a) >= len(actionNames) {
		return fmt.Sprintf("action(%d)", int(a))
	}
	return actionNames[a]
}

// Target is the inbox an action concerns; the zero value is none.
type Target struct {
	// Inbox is set when the action names an inbox.
	Inbox bool
	// CatchAll tells that the inbox is the catch-all.
	CatchAll bool
	// Owner is the inbox's owner ("": created with the server's key).
	Owner string
}

// Verdict is the answer to a request.
type Verdict int

// The verdicts.
const (
	// Allow lets the request through.
	Allow Verdict = iota
	// Hide answers as if the inbox did not exist.
	Hide
	// Forbid refuses the request (403).
	Forbid
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Hide:
		return "hide"
	}
	return "forbid"
}

// Decide is the verdict on p doing act to t: the one table of who may do
// what.
func Decide(p Principal, act Action, t Target) Verdict {
	if p.Role == RoleAdmin {
		return Allow
	}
	if !t.Inbox {
		switch act {
		case CreateInbox, ReadService:
			return Allow
		case DeleteAll:
			return allowIf(p.Role == RoleMember)
		}
		return Forbid // global webhooks, and anything not named
	}
	own := p.ID != "" && t.Owner == p.ID
	if !own && !t.CatchAll {
		return Hide
	}
	switch act {
	case ReadInbox, MarkRead, ReadChaos:
		return Allow
	case DeleteEmail, SendTest:
		return allowIf(own || p.Role == RoleMember)
	case DeleteInbox:
		return allowIf(own && !t.CatchAll)
	case ReadWebhooks:
		return allowIf(own && !t.CatchAll)
	case ChangeWebhooks, ChangeChaos:
		return allowIf(own && !t.CatchAll && p.Role == RoleMember)
	}
	return Forbid
}

func allowIf(ok bool) Verdict {
	if ok {
		return Allow
	}
	return Forbid
}
