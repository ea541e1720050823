package webhook

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"sandview/model"
)

// templateLabels are the display names of the built-in templates, in the
// contract's order.
var templateLabels = [...]model.TemplateOption{
	{Label: "Default (raw event JSON)", Value: model.TemplateDefault},
	{Label: "Slack", Value: model.TemplateSlack},
	{Label: "Discord", Value: model.TemplateDiscord},
	{Label: "Microsoft Teams", Value: model.TemplateTeams},
	{Label: "Simple (from, to, subject, preview)", Value: model.TemplateSimple},
	{Label: "Notification (single text message)", Value: model.TemplateNotification},
	{Label: "Zapier (flat fields)", Value: model.TemplateZapier},
}

// compiledTemplate renders event bodies for one webhook.
type compiledTemplate struct {
	kind        string // a built-in name or model.TemplateCustom
	custom      *customTemplate
	contentType string
}

// templateError is a template the contract refuses with 422.
type templateError struct{ msg string }

func (e *templateError) Error() string { return e.msg }

// compileTemplate validates a template choice; nil means default.
func compileTemplate(t *model.WebhookTemplate) (*compiledTemplate, error) {
	if t == nil {
		return &compiledTemplate{kind: model.TemplateDefault, contentType: defaultContentType}, nil
	}
	ct := &compiledTemplate{kind: t.Type, contentType: defaultContentType}
	if t.ContentType != "" {
		if strings.ContainsAny(t.ContentType, "\r\n") || len(t.ContentType) > 255 {
			return nil, &templateError{"template.contentType must be one line of at most 255 characters"}
		}
		ct.contentType = t.ContentType
	}
	switch {
	case t.Type == model.TemplateCustom:
		if t.Body == "" {
			return nil, &templateError{"template.body is required for a custom template"}
		}
		if n := utf8.RuneCountInString(t.Body); n > maxCustomBodyLen {
			return nil, &templateError{fmt.Sprintf("template.body has %d characters; at most %d are allowed", n, maxCustomBodyLen)}
		}
		custom, err := compileCustom(t.Body)
		if err != nil {
			return nil, &templateError{"template.body: " + err.Error()}
		}
		ct.custom = custom
		at := sampleTime()
		sample, err := newEventView(sampleIncoming(model.EventEmailReceived, at), "evt_sample", at, DefaultConfig().dataShape(), nil)
		if err != nil {
			return nil, fmt.Errorf("build the sample event: %w", err)
		}
		out, err := ct.render(sample)
		if err != nil || !json.Valid(out) {
			return nil, &templateError{"template.body does not render to valid JSON with a sample event"}
		}
	case isBuiltin(t.Type):
		if t.Body != "" {
			return nil, &templateError{fmt.Sprintf("template.body is only allowed with type custom, not %s", t.Type)}
		}
	case t.Type == "":
		return nil, &templateError{"template.type is required"}
	default:
		return nil, &templateError{fmt.Sprintf("unknown template %q: use one of default, slack, discord, teams, simple, notification, zapier, or a custom template", t.Type)}
	}
	return ct, nil
}

func isBuiltin(name string) bool {
	for _, o := range templateLabels {
		if o.Value == name {
			return true
		}
	}
	return false
}

// render produces the delivery body of v.
func (t *compiledTemplate) render(v *eventView) ([]byte, error) {
	switch t.kind {
	case model.TemplateCustom:
		tree, err := v.genericTree()
		if err != nil {
			return nil, err
		}
		return t.custom.render(tree)
	case model.TemplateSlack:
		return json.Marshal(slackBody(v))
	case model.TemplateDiscord:
		return json.Marshal(discordBody(v))
	case model.TemplateTeams:
		return json.Marshal(teamsBody(v))
	case model.TemplateSimple:
		return json.Marshal(simpleBody(v))
	case model.TemplateNotification:
		return json.Marshal(map[string]string{"text": headline(v, true)})
	case model.TemplateZapier:
		return json.Marshal(zapierBody(v))
	}
	return v.body()
}
