package webhooks

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// check validates the form, marking each field in error; it reports
// whether the form can be sent.
func (f *form) check() bool {
	f.errs, f.err = map[formStop]string{}, ""
	url := strings.TrimSpace(f.url.Value())
	switch {
	case url == "" || url == "https://":
		f.errs[formStop{kind: stopURL}] = "enter the URL deliveries go to"
	case len(url) > maxHookURLLen:
		f.errs[formStop{kind: stopURL}] = fmt.Sprintf("at most %d characters", maxHookURLLen)
	}
	if !slices.Contains(f.events, true) {
		f.errs[formStop{kind: stopEvents}] = fmt.Sprintf("tick at least one event (%s)", ui.KeyName(f.keys.Toggle))
	}
	if f.custom() && strings.TrimSpace(f.body.Value()) == "" {
		f.errs[formStop{kind: stopBody}] = "a custom template needs a JSON body"
	}
	if f.filter.Index > 0 {
		for i, r := range f.rules {
			name := strings.TrimSpace(r.field.Value())
			if !validFilterField(name) {
				f.errs[formStop{kind: stopRuleField, rule: i}] = "field: " + strings.Join(model.FilterFields(), ", ") + " or header.<Name>"
			}
			op := r.op.Value()
			switch v := r.value.Value(); {
			case v == "" && op != model.OpExists:
				f.errs[formStop{kind: stopRuleValue, rule: i}] = "enter a value to compare with"
			case len(v) > maxRuleValueLen:
				f.errs[formStop{kind: stopRuleValue, rule: i}] = fmt.Sprintf("value: at most %d characters", maxRuleValueLen)
			}
		}
	}
	if len(f.desc.Value()) > maxHookDescriptionLen {
		f.errs[formStop{kind: stopDescription}] = fmt.Sprintf("at most %d characters", maxHookDescriptionLen)
	}
	for i, s := range f.stops() {
		if _, bad := f.errs[s]; bad {
			f.focus = i
			return false
		}
	}
	return true
}

func validFilterField(name string) bool {
	if h, ok := strings.CutPrefix(name, "header."); ok {
		return h != "" && !strings.ContainsAny(h, " :")
	}
	return slices.Contains(model.FilterFields(), name)
}

// request parts shared by create and update.
func (f *form) chosenEvents() []string {
	var out []string
	for i, ev := range receiverEvents() {
		if f.events[i] {
			out = append(out, ev)
		}
	}
	return out
}

func (f *form) chosenTemplate() model.WebhookTemplate {
	if f.custom() {
		return model.WebhookTemplate{Type: model.TemplateCustom, Body: strings.TrimSpace(f.body.Value()), ContentType: f.ctype}
	}
	return model.WebhookTemplate{Type: f.template.Value()}
}

func (f *form) chosenFilter() *model.FilterConfig {
	if f.filter.Index == 0 {
		return nil
	}
	cfg := &model.FilterConfig{Mode: f.filter.Value(), Rules: []model.FilterRule{}, RequireAuth: f.reqAuth}
	for _, r := range f.rules {
		cfg.Rules = append(cfg.Rules, model.FilterRule{
			Field: strings.TrimSpace(r.field.Value()), Operator: r.op.Value(),
			Value: r.value.Value(), CaseSensitive: r.caseSensitive,
		})
	}
	return cfg
}

// submit checks the form and sends it.
func (f *form) submit() tea.Cmd {
	if !f.check() {
		return nil
	}
	f.busy = true
	url, desc, tpl := strings.TrimSpace(f.url.Value()), strings.TrimSpace(f.desc.Value()), f.chosenTemplate()
	if f.editing == nil {
		inbox := ""
		if f.scope.Index > 0 {
			inbox = f.scope.Value()
		}
		return f.create(inbox, model.CreateWebhookRequest{URL: url, Events: f.chosenEvents(), Template: &tpl, Filter: f.chosenFilter(), Description: desc})
	}
	req := model.UpdateWebhookRequest{URL: &url, Events: f.chosenEvents(), Template: model.Some(tpl), Description: &desc}
	switch filter := f.chosenFilter(); {
	case filter != nil:
		req.Filter = model.Some(*filter)
	case f.editing.Filter != nil:
		req.Filter = model.Null[model.FilterConfig]()
	}
	return f.update(req)
}

// ruleField is the path of a filter rule's field, "filter.rules[i].part".
var ruleField = regexp.MustCompile(`^filter\.rules\[(\d+)\](?:\.(\w+))?$`)

// fieldStops are the form's stops by the request field they edit.
var fieldStops = map[string]stopKind{
	"url": stopURL, "events": stopEvents, "template": stopTemplate, "template.body": stopBody,
	"filter": stopFilter, "description": stopDescription,
}

// stopForField is the form's stop of a request field the server named
// (client.Problem.Field): the field's own, else that of the field it is
// part of.
func stopForField(field string) (formStop, bool) {
	field = strings.ToLower(field)
	if m := ruleField.FindStringSubmatch(field); m != nil {
		i, _ := strconv.Atoi(m[1])
		kind := stopRuleValue
		switch m[2] {
		case "field":
			kind = stopRuleField
		case "operator":
			kind = stopRuleOp
		case "casesensitive":
			kind = stopRuleCase
		}
		return formStop{kind: kind, rule: i}, true
	}
	if kind, ok := fieldStops[field]; ok {
		return formStop{kind: kind}, true
	}
	head := field[:strings.IndexAny(field+".", ".[")]
	kind, ok := fieldStops[head]
	return formStop{kind: kind}, ok
}

// failed shows a server error: each problem of a refused webhook
// (*client.InvalidWebhookError) next to the field it names, else the
// error under the form. What was typed stays.
func (f *form) failed(err error) {
	f.busy = false
	f.errs = map[formStop]string{}
	f.err = ui.ErrorText(err)
	var invalid *client.InvalidWebhookError
	if !errors.As(err, &invalid) {
		return
	}
	for _, p := range invalid.Problems {
		stop, ok := stopForField(p.Field)
		if !ok || !slices.Contains(f.stops(), stop) {
			continue
		}
		f.errs[stop] = termtext.SanitizeLine(p.Text)
	}
	if len(f.errs) == 0 {
		return
	}
	f.err = "the server refused the webhook: see the marked field"
	for i, s := range f.stops() {
		if _, bad := f.errs[s]; bad {
			f.focus = i
			break
		}
	}
}
