package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Webhook event types.
const (
	EventEmailReceived = "email.received"
	EventEmailStored   = "email.stored"
	EventEmailDeleted  = "email.deleted"
)

// Webhook scopes.
const (
	ScopeGlobal = "global"
	ScopeInbox  = "inbox"
)

// Built-in webhook template names, in the order the templates endpoint lists them.
const (
	TemplateDefault      = "default"
	TemplateSlack        = "slack"
	TemplateDiscord      = "discord"
	TemplateTeams        = "teams"
	TemplateSimple       = "simple"
	TemplateNotification = "notification"
	TemplateZapier       = "zapier"
	TemplateCustom       = "custom"
)

// BuiltinTemplates lists the built-in template names in contract order.
func BuiltinTemplates() []string {
	return []string{TemplateDefault, TemplateSlack, TemplateDiscord, TemplateTeams,
		TemplateSimple, TemplateNotification, TemplateZapier}
}

// Filter modes and operators.
const (
	FilterModeAll = "all"
	FilterModeAny = "any"

	OpEquals     = "equals"
	OpContains   = "contains"
	OpStartsWith = "starts_with"
	OpEndsWith   = "ends_with"
	OpDomain     = "domain"
	OpRegex      = "regex"
	OpExists     = "exists"
)

// FilterOperators lists every filter operator.
func FilterOperators() []string {
	return []string{OpEquals, OpContains, OpStartsWith, OpEndsWith, OpDomain, OpRegex, OpExists}
}

// FilterFields lists the fixed filterable fields; "header.<Name>" is also accepted.
func FilterFields() []string {
	return []string{"subject", "from.address", "from.name", "to.address", "to.name", "body.text", "body.html"}
}

// Webhook is the WebhookResponse of the contract.
type Webhook struct {
	ID                 string           `json:"id"`
	URL                string           `json:"url"`
	Events             []string         `json:"events"`
	Scope              string           `json:"scope"`
	InboxEmail         string           `json:"inboxEmail,omitempty"`
	InboxHash          string           `json:"inboxHash,omitempty"`
	Enabled            bool             `json:"enabled"`
	Secret             string           `json:"secret,omitempty"`
	Template           *WebhookTemplate `json:"template,omitempty"`
	Filter             *FilterConfig    `json:"filter,omitempty"`
	Description        string           `json:"description,omitempty"`
	CreatedAt          time.Time        `json:"createdAt"`
	UpdatedAt          *time.Time       `json:"updatedAt,omitempty"`
	LastDeliveryAt     *time.Time       `json:"lastDeliveryAt,omitempty"`
	LastDeliveryStatus string           `json:"lastDeliveryStatus,omitempty"`
	Stats              *WebhookStats    `json:"stats,omitempty"`
}

// WebhookStats counts a webhook's deliveries.
type WebhookStats struct {
	TotalDeliveries      int `json:"totalDeliveries"`
	SuccessfulDeliveries int `json:"successfulDeliveries"`
	FailedDeliveries     int `json:"failedDeliveries"`
}

// WebhookList is the WebhookListResponse of the contract.
type WebhookList struct {
	Webhooks []Webhook `json:"webhooks"`
	Total    int       `json:"total"`
}

// WebhookTemplate is a template choice: a built-in name (Type only) or a
// custom body. On the wire it is a string for a plain built-in and an object
// otherwise.
type WebhookTemplate struct {
	Type        string `json:"type"`
	Body        string `json:"body,omitempty"`
	ContentType string `json:"contentType,omitempty"`
}

// MarshalJSON writes a plain built-in as its name and anything else as an object.
func (t WebhookTemplate) MarshalJSON() ([]byte, error) {
	if t.Type != TemplateCustom && t.Body == "" && t.ContentType == "" {
		return json.Marshal(t.Type)
	}
	type object WebhookTemplate
	return json.Marshal(object(t))
}

// UnmarshalJSON accepts a template name or a template object.
func (t *WebhookTemplate) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var name string
		if err := json.Unmarshal(data, &name); err != nil {
			return fmt.Errorf("decode template name: %w", err)
		}
		*t = WebhookTemplate{Type: name}
		return nil
	}
	type object WebhookTemplate
	var o object
	if err := json.Unmarshal(data, &o); err != nil {
		return fmt.Errorf("decode template object: %w", err)
	}
	*t = WebhookTemplate(o)
	return nil
}

// FilterConfig selects which events a webhook fires for.
type FilterConfig struct {
	Mode        string       `json:"mode"`
	Rules       []FilterRule `json:"rules"`
	RequireAuth *bool        `json:"requireAuth,omitempty"`
}

// FilterRule is one condition of a filter.
type FilterRule struct {
	Field         string `json:"field"`
	Operator      string `json:"operator"`
	Value         string `json:"value"`
	CaseSensitive bool   `json:"caseSensitive,omitempty"`
}

// CreateWebhookRequest is the CreateWebhook body.
type CreateWebhookRequest struct {
	URL         string           `json:"url"`
	Events      []string         `json:"events"`
	Template    *WebhookTemplate `json:"template,omitempty"`
	Filter      *FilterConfig    `json:"filter,omitempty"`
	Description string           `json:"description,omitempty"`
}

// UpdateWebhookRequest is the UpdateWebhook body: every field optional;
// Template and Filter may be set to null to remove them.
type UpdateWebhookRequest struct {
	URL         *string                   `json:"url,omitempty"`
	Events      []string                  `json:"events,omitempty"`
	Template    Nullable[WebhookTemplate] `json:"template,omitzero"`
	Filter      Nullable[FilterConfig]    `json:"filter,omitzero"`
	Description *string                   `json:"description,omitempty"`
	Enabled     *bool                     `json:"enabled,omitempty"`
}

// Nullable is a JSON field that can be absent (zero value), null, or a value.
type Nullable[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// Some returns a Nullable holding v.
func Some[T any](v T) Nullable[T] { return Nullable[T]{Set: true, Value: v} }

// Null returns a Nullable that is explicitly null.
func Null[T any]() Nullable[T] { return Nullable[T]{Set: true, Null: true} }

// IsZero reports an absent field, so that `omitzero` leaves it out.
func (n Nullable[T]) IsZero() bool { return !n.Set }

// MarshalJSON writes null or the value.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.Null {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON marks the field present, and null when it is.
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	n.Set = true
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		n.Null = true
		return nil
	}
	return json.Unmarshal(data, &n.Value)
}

// TestWebhookResponse is the answer to a webhook test.
type TestWebhookResponse struct {
	Success      bool            `json:"success"`
	StatusCode   int             `json:"statusCode,omitempty"`
	ResponseTime int64           `json:"responseTime,omitempty"`
	ResponseBody string          `json:"responseBody,omitempty"`
	Error        string          `json:"error,omitempty"`
	PayloadSent  json.RawMessage `json:"payloadSent,omitempty"`
}

// RotateSecretResponse is the answer to rotate-secret.
type RotateSecretResponse struct {
	ID                       string    `json:"id"`
	Secret                   string    `json:"secret"`
	PreviousSecretValidUntil time.Time `json:"previousSecretValidUntil"`
}

// TemplateOption is one entry of the templates list.
type TemplateOption struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// WebhookTemplates is the WebhookTemplatesResponse.
type WebhookTemplates struct {
	Templates []TemplateOption `json:"templates"`
}

// WebhookMetrics is the WebhookMetricsResponse.
type WebhookMetrics struct {
	Webhooks struct {
		Global  int `json:"global"`
		Inbox   int `json:"inbox"`
		Enabled int `json:"enabled"`
		Total   int `json:"total"`
	} `json:"webhooks"`
	Deliveries struct {
		Total      int `json:"total"`
		Successful int `json:"successful"`
		Failed     int `json:"failed"`
	} `json:"deliveries"`
}
