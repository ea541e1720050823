package webhooks

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"sandview/client/webhookrecv"
	"sandview/model"
	"sandview/model/termtext"
)

// maxDeliveries is how many received deliveries the screen keeps.
const maxDeliveries = 200

// hookState is what the webhooks screen knows: the webhooks of every
// scope, their full records (secret, stats), the metrics, the templates,
// the results of actions and the deliveries of the built-in receiver.
// Every text in it was sanitized when it entered.
type hookState struct {
	hooks   []model.Webhook // global first, then per inbox in inbox order
	loading bool
	loadErr string

	full       map[string]model.Webhook // GET answers (secret, stats) by id
	fullErr    map[string]string
	metrics    *model.WebhookMetrics
	metricsErr string
	templates  []model.TemplateOption
	tplErr     string

	tests     map[string]hookTest
	rotations map[string]hookRotation
	revealed  bool

	recv       Receiver
	recvURL    string
	recvErr    string              // why the receiver could not start or be pointed at
	recvHooks  map[string][]string // receiver webhook id -> its secrets (current, previous)
	deliveries []delivery          // newest first
	dropped    uint64
}

// Receiver is the built-in webhook receiver (a *webhookrecv.Receiver).
type Receiver interface {
	URL() string
	Deliveries() <-chan webhookrecv.Delivery
	Dropped() uint64
	SetSecrets(secrets ...string)
	Close() error
}

// hookTest is the answer to a test of one webhook.
type hookTest struct {
	at      time.Time
	res     model.TestWebhookResponse
	payload *highlighted // pretty JSON of PayloadSent, sanitized
	err     string
}

// hookRotation is the answer to a secret rotation.
type hookRotation struct {
	at         time.Time
	validUntil time.Time
	err        string
}

// delivery is one request the built-in receiver got, sanitized.
type delivery struct {
	receivedAt time.Time
	event      string
	id         string
	timestamp  string
	age        time.Duration
	signature  webhookrecv.SignatureStatus
	body       *highlighted
	headers    []string // "Name: value", sorted
}

func newHookState() *hookState {
	return &hookState{
		full: map[string]model.Webhook{}, fullErr: map[string]string{},
		tests: map[string]hookTest{}, rotations: map[string]hookRotation{}, recvHooks: map[string][]string{},
	}
}

// setHooks replaces the list.
func (d *hookState) setHooks(hooks []model.Webhook) {
	out := make([]model.Webhook, len(hooks))
	for i, h := range hooks {
		out[i] = sanitizeWebhook(h)
	}
	d.hooks = out
	d.loading = false
	// Full records of webhooks that went away are dropped; the others
	// are refreshed on selection.
	for id := range d.full {
		if d.index(id) < 0 {
			delete(d.full, id)
		}
	}
}

// index is the position of the webhook id in the list (-1 if absent).
func (d *hookState) index(id string) int {
	return slices.IndexFunc(d.hooks, func(h model.Webhook) bool { return h.ID == id })
}

// hook returns the best record of a webhook: the full one when loaded.
func (d *hookState) hook(i int) (model.Webhook, bool) {
	if i < 0 || i >= len(d.hooks) {
		return model.Webhook{}, false
	}
	h := d.hooks[i]
	if f, ok := d.full[h.ID]; ok {
		return f, true
	}
	return h, true
}

// put records a webhook answer (create, get, update): the list entry is
// replaced (or the webhook added in its scope's place) and the full record
// kept. The secret is kept when the answer has none.
func (d *hookState) put(h model.Webhook, full bool) {
	h = sanitizeWebhook(h)
	if old, ok := d.full[h.ID]; ok {
		if h.Secret == "" {
			h.Secret = old.Secret
		}
		if h.Stats == nil {
			h.Stats = old.Stats
		}
		full = true
	}
	if full {
		d.full[h.ID] = h
	}
	entry := h
	entry.Secret, entry.Stats = "", nil
	if i := d.index(h.ID); i >= 0 {
		d.hooks[i] = entry
		return
	}
	// Global webhooks go before the inbox ones.
	pos := len(d.hooks)
	if h.Scope != model.ScopeInbox {
		pos = slices.IndexFunc(d.hooks, func(o model.Webhook) bool { return o.Scope == model.ScopeInbox })
		if pos < 0 {
			pos = len(d.hooks)
		}
	}
	d.hooks = slices.Insert(d.hooks, pos, entry)
}

// remove drops a webhook.
func (d *hookState) remove(id string) {
	if i := d.index(id); i >= 0 {
		d.hooks = slices.Delete(d.hooks, i, i+1)
	}
	delete(d.full, id)
	delete(d.fullErr, id)
	delete(d.tests, id)
	delete(d.rotations, id)
	delete(d.recvHooks, id)
}

// receiverSecrets lists the secrets the receiver verifies with.
func (d *hookState) receiverSecrets() []string {
	ids := make([]string, 0, len(d.recvHooks))
	for id := range d.recvHooks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []string
	for _, id := range ids {
		out = append(out, d.recvHooks[id]...)
	}
	return out
}

// addDelivery puts a delivery first, keeping at most maxDeliveries.
func (d *hookState) addDelivery(r webhookrecv.Delivery) {
	d.deliveries = slices.Insert(d.deliveries, 0, sanitizeDelivery(r))
	if len(d.deliveries) > maxDeliveries {
		d.deliveries = d.deliveries[:maxDeliveries]
	}
}

// sanitizeWebhook makes every untrusted text of a webhook safe to print.
func sanitizeWebhook(h model.Webhook) model.Webhook {
	line := termtext.SanitizeLine
	h.ID, h.URL, h.Scope = line(h.ID), line(h.URL), line(h.Scope)
	h.InboxEmail, h.InboxHash = line(h.InboxEmail), line(h.InboxHash)
	h.Secret, h.Description, h.LastDeliveryStatus = line(h.Secret), line(h.Description), line(h.LastDeliveryStatus)
	if h.Events != nil {
		ev := make([]string, len(h.Events))
		for i, e := range h.Events {
			ev[i] = line(e)
		}
		h.Events = ev
	}
	if h.Template != nil {
		t := *h.Template
		t.Type, t.Body, t.ContentType = line(t.Type), termtext.Sanitize(t.Body), line(t.ContentType)
		h.Template = &t
	}
	if h.Filter != nil {
		f := *h.Filter
		f.Mode = line(f.Mode)
		rules := make([]model.FilterRule, len(f.Rules))
		for i, r := range f.Rules {
			r.Field, r.Operator, r.Value = line(r.Field), line(r.Operator), line(r.Value)
			rules[i] = r
		}
		f.Rules = rules
		h.Filter = &f
	}
	return h
}

// sanitizeTest cleans a test answer and pretty-prints the payload sent.
func sanitizeTest(res model.TestWebhookResponse, at time.Time) hookTest {
	res.ResponseBody = termtext.Sanitize(res.ResponseBody)
	res.Error = termtext.SanitizeLine(res.Error)
	t := hookTest{at: at, res: res}
	if len(res.PayloadSent) > 0 {
		t.payload = newHighlighted(termtext.Sanitize(prettyJSON(res.PayloadSent)))
	}
	t.res.PayloadSent = nil
	return t
}

// sanitizeDelivery cleans a delivery of the built-in receiver.
func sanitizeDelivery(r webhookrecv.Delivery) delivery {
	line := termtext.SanitizeLine
	d := delivery{
		receivedAt: r.ReceivedAt, event: line(r.Event), id: line(r.DeliveryID), timestamp: line(r.Timestamp),
		age: r.Age, signature: r.Signature, body: newHighlighted(termtext.Sanitize(r.PrettyBody)),
	}
	d.headers = headerLines(r.Headers)
	return d
}

// headerLines renders headers as sorted, sanitized "Name: value" lines.
func headerLines(h http.Header) []string {
	var out []string
	for name, values := range h {
		for _, v := range values {
			out = append(out, termtext.SanitizeLine(name)+": "+termtext.SanitizeLine(v))
		}
	}
	sort.Strings(out)
	return out
}

// prettyJSON indents JSON; anything else comes back as it is.
func prettyJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") == nil {
		return b.String()
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD")
}
