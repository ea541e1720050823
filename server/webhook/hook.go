package webhook

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"sandview/client/netguard"
	"sandview/model"
)

// record is a webhook as persisted: the response fields plus what the
// engine keeps to itself.
type record struct {
	ID                       string                 `json:"id"`
	URL                      string                 `json:"url"`
	Events                   []string               `json:"events"`
	Scope                    string                 `json:"scope"`
	InboxEmail               string                 `json:"inboxEmail,omitempty"`
	InboxHash                string                 `json:"inboxHash,omitempty"`
	Enabled                  bool                   `json:"enabled"`
	Secret                   string                 `json:"secret"`
	PreviousSecret           string                 `json:"previousSecret,omitempty"`
	PreviousSecretValidUntil time.Time              `json:"previousSecretValidUntil,omitzero"`
	Template                 *model.WebhookTemplate `json:"template,omitempty"`
	Filter                   *model.FilterConfig    `json:"filter,omitempty"`
	Description              string                 `json:"description,omitempty"`
	CreatedAt                time.Time              `json:"createdAt"`
	Seq                      uint64                 `json:"seq"` // creation order, numbered by the store
	UpdatedAt                *time.Time             `json:"updatedAt,omitempty"`
	LastDeliveryAt           *time.Time             `json:"lastDeliveryAt,omitempty"`
	LastDeliveryStatus       string                 `json:"lastDeliveryStatus,omitempty"`
	Stats                    model.WebhookStats     `json:"stats"`
	ConsecutiveFailures      int                    `json:"consecutiveFailures"`
}

// hook is a live webhook: its record, compiled filter and template, and
// its delivery slots.
type hook struct {
	rec      record
	filter   *compiledFilter // nil: no filter
	template *compiledTemplate
	slots    chan struct{} // concurrent deliveries of this webhook
	// stored is the record as the store holds it.
	stored []byte
}

func newHook(rec record, filter *compiledFilter, tmpl *compiledTemplate) *hook {
	return &hook{rec: rec, filter: filter, template: tmpl, slots: make(chan struct{}, maxConcurrentPerHook)}
}

// view is the response shape: secret and stats only when asked for.
func (h *hook) view(withSecret, withStats bool) model.Webhook {
	r := h.rec
	w := model.Webhook{
		ID: r.ID, URL: r.URL, Events: slices.Clone(r.Events), Scope: r.Scope, InboxEmail: r.InboxEmail,
		InboxHash: r.InboxHash, Enabled: r.Enabled, Description: r.Description, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, LastDeliveryAt: r.LastDeliveryAt, LastDeliveryStatus: r.LastDeliveryStatus,
	}
	if r.Template != nil {
		t := *r.Template
		w.Template = &t
	}
	if r.Filter != nil {
		f := *r.Filter
		f.Rules = slices.Clone(f.Rules)
		w.Filter = &f
	}
	if withSecret {
		w.Secret = r.Secret
	}
	if withStats {
		s := r.Stats
		w.Stats = &s
	}
	return w
}

// subscribes reports whether the webhook wants events of type t.
func (h *hook) subscribes(t string) bool { return slices.Contains(h.rec.Events, t) }

// inScope reports whether an event of the inbox concerns the webhook.
func (h *hook) inScope(inboxHash, inboxEmail string) bool {
	if h.rec.Scope == model.ScopeGlobal {
		return true
	}
	if h.rec.InboxHash != "" && inboxHash != "" {
		return h.rec.InboxHash == inboxHash
	}
	return strings.EqualFold(h.rec.InboxEmail, inboxEmail)
}

// newID returns prefix + 32 hex digits from crypto/rand.
func newID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return prefix + hex.EncodeToString(b[:])
}

// newSecret returns a signing secret: whsec_ + 64 hex digits.
func newSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "whsec_" + hex.EncodeToString(b[:])
}

// requestError is a refused request: status 400, 404, 409 or 422 (400
// under the reference wire).
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &requestError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// checkURL validates a webhook URL under the HTTP settings.
func (cfg Config) checkURL(raw string) error {
	if raw == "" {
		return badRequest("url is required")
	}
	if utf8.RuneCountInString(raw) > maxURLLen {
		return badRequest("url is longer than %d characters", maxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return badRequest("url is not a valid URL: %v", err)
	}
	if u.Host == "" || u.Hostname() == "" {
		return badRequest("url %q has no host", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if cfg.AllowHTTP || cfg.AllowLoopbackHTTP && netguard.LoopbackHost(u.Hostname()) {
			return nil
		}
		if cfg.AllowLoopbackHTTP {
			return badRequest("url must use https (http is allowed only for loopback hosts on this server)")
		}
		return badRequest("url must use https (http is allowed only when the server runs with --webhook-allow-http (SVC_WEBHOOK_ALLOW_HTTP=true))")
	}
	return badRequest("url must be an https URL, not %q", u.Scheme)
}

// checkEvents validates an event list and drops repeats, keeping order.
func checkEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, badRequest("events must list at least one of email.received, email.stored, email.deleted")
	}
	if len(events) > maxEvents {
		return nil, badRequest("events holds %d entries; at most %d are allowed", len(events), maxEvents)
	}
	out := make([]string, 0, len(events))
	for _, ev := range events {
		switch ev {
		case model.EventEmailReceived, model.EventEmailStored, model.EventEmailDeleted:
		default:
			return nil, badRequest("unknown event %q: use email.received, email.stored or email.deleted", ev)
		}
		if !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	return out, nil
}

func checkDescription(d string) error {
	if utf8.RuneCountInString(d) > maxDescriptionLen {
		return badRequest("description is longer than %d characters", maxDescriptionLen)
	}
	return nil
}

// compileParts compiles a filter and a template, mapping their errors to
// request errors (400, or the profile's status for a regular expression or
// template that does not compile).
func (cfg Config) compileParts(f *model.FilterConfig, t *model.WebhookTemplate) (*compiledFilter, *model.FilterConfig, *compiledTemplate, error) {
	var cf *compiledFilter
	var stored *model.FilterConfig
	if f != nil {
		c, resolved, err := compileFilter(*f, cfg.RequireAuthDefault)
		if err != nil {
			status := http.StatusBadRequest
			var fe *filterError
			if errors.As(err, &fe) && fe.invalid {
				status = cfg.wire().invalidStatus
			}
			return nil, nil, nil, &requestError{status: status, msg: err.Error()}
		}
		cf, stored = c, &resolved
	}
	ct, err := compileTemplate(t)
	if err != nil {
		return nil, nil, nil, &requestError{status: cfg.wire().invalidStatus, msg: err.Error()}
	}
	return cf, stored, ct, nil
}

// validSecrets are the secrets a signature may be made with at now: the
// current one and, during the rotation grace, the previous one.
func (r record) validSecrets(now time.Time) []string {
	if r.PreviousSecret != "" && now.Before(r.PreviousSecretValidUntil) {
		return []string{r.Secret, r.PreviousSecret}
	}
	return []string{r.Secret}
}
