package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"sandview/model"
	"sandview/server/httpapi"
)

// createBody is the CreateWebhook body as the routes read it. template
// stays raw: model.WebhookTemplate decodes leniently (it also serves
// clients reading responses), so its object form is checked here, as
// strictly as the rest of the body.
type createBody struct {
	URL         string              `json:"url"`
	Events      []string            `json:"events"`
	Template    json.RawMessage     `json:"template"`
	Filter      *model.FilterConfig `json:"filter"`
	Description string              `json:"description"`
}

// updateBody is the UpdateWebhook body as the routes read it; template
// and filter stay raw to tell absent from null and to be checked strictly.
type updateBody struct {
	URL         *string         `json:"url"`
	Events      []string        `json:"events"`
	Template    json.RawMessage `json:"template"`
	Filter      json.RawMessage `json:"filter"`
	Description *string         `json:"description"`
	Enabled     *bool           `json:"enabled"`
}

// templateObject is the object form of a template.
type templateObject struct {
	Type        string `json:"type"`
	Body        string `json:"body"`
	ContentType string `json:"contentType"`
}

// decodeCreate reads a create request; on a bad body it answers 400 and
// reports false.
func decodeCreate(w http.ResponseWriter, r *http.Request) (model.CreateWebhookRequest, bool) {
	var b createBody
	if !httpapi.DecodeBody(w, r, &b) {
		return model.CreateWebhookRequest{}, false
	}
	tmpl, err := decodeTemplate(b.Template)
	if err != nil {
		httpapi.WriteError(w, http.StatusBadRequest, "%v", err)
		return model.CreateWebhookRequest{}, false
	}
	return model.CreateWebhookRequest{URL: b.URL, Events: b.Events, Template: tmpl, Filter: b.Filter, Description: b.Description}, true
}

// decodeUpdate reads an update request; on a bad body it answers 400 and
// reports false.
func decodeUpdate(w http.ResponseWriter, r *http.Request) (model.UpdateWebhookRequest, bool) {
	var b updateBody
	if !httpapi.DecodeBody(w, r, &b) {
		return model.UpdateWebhookRequest{}, false
	}
	tmpl, err := decodeTemplate(b.Template)
	var filter *model.FilterConfig
	if err == nil {
		filter, err = decodeObject[model.FilterConfig](b.Filter, "filter")
	}
	if err != nil {
		httpapi.WriteError(w, http.StatusBadRequest, "%v", err)
		return model.UpdateWebhookRequest{}, false
	}
	return model.UpdateWebhookRequest{
		URL: b.URL, Events: b.Events, Description: b.Description, Enabled: b.Enabled,
		Template: optional(b.Template, tmpl), Filter: optional(b.Filter, filter),
	}, true
}

// decodeTemplate reads a template property: a built-in name or a template
// object; nil when absent or null.
func decodeTemplate(raw json.RawMessage) (*model.WebhookTemplate, error) {
	switch trimmed := bytes.TrimSpace(raw); {
	case httpapi.IsNull(raw):
		return nil, nil
	case trimmed[0] == '"':
		var name string
		if err := httpapi.DecodeValue(raw, &name, "template"); err != nil {
			return nil, err
		}
		return &model.WebhookTemplate{Type: name}, nil
	case trimmed[0] != '{':
		return nil, fmt.Errorf("field template must be a template name or an object, got %s", trimmed)
	}
	obj, err := decodeObject[templateObject](raw, "template")
	if err != nil {
		return nil, err
	}
	t := model.WebhookTemplate(*obj)
	return &t, nil
}

// decodeObject decodes the property at path strictly; nil when absent or
// null.
func decodeObject[T any](raw json.RawMessage, path string) (*T, error) {
	if httpapi.IsNull(raw) {
		return nil, nil
	}
	v := new(T)
	if err := httpapi.DecodeValue(raw, v, path); err != nil {
		return nil, err
	}
	return v, nil
}

// optional is an update field: absent when raw is, null when v is nil,
// else v.
func optional[T any](raw json.RawMessage, v *T) model.Nullable[T] {
	switch {
	case len(bytes.TrimSpace(raw)) == 0:
		return model.Nullable[T]{}
	case v == nil:
		return model.Null[T]()
	}
	return model.Some(*v)
}
