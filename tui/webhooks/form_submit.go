package webhooks

import (
	"errors"
	"fmt"
	"net/http"
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

// ruleError finds "filter.rules[i].part" in a server message.
var ruleError = regexp.MustCompile(`filter\.rules\[(\d+)\](?:\.(\w+))?`)

// stopForMessage names the field a server validation message is about.
func stopForMessage(msg string) (formStop, bool) {
	lower := strings.ToLower(strings.TrimSpace(msg))
	if m := ruleError.FindStringSubmatch(lower); m != nil {
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
	prefixes := []struct {
		prefix string
		kind   stopKind
	}{
		{"url", stopURL}, {"events", stopEvents}, {"unknown event", stopEvents},
		{"template.body", stopBody}, {"template", stopTemplate}, {"unknown template", stopTemplate},
		{"filter", stopFilter}, {"description", stopDescription},
	}
	for _, p := range prefixes {
		if strings.HasPrefix(lower, p.prefix) {
			return formStop{kind: p.kind}, true
		}
	}
	return formStop{}, false
}

// failed shows a server error: a validation message next to its field
// when it names one, else under the form. What was typed stays.
func (f *form) failed(err error) {
	f.busy = false
	f.errs = map[formStop]string{}
	f.err = ui.ErrorText(err)
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.Message == "" || apiErr.StatusCode >= 500 {
		return
	}
	for _, part := range strings.Split(termtext.SanitizeLine(apiErr.Message), "; ") {
		stop, ok := stopForMessage(part)
		if !ok || !slices.Contains(f.stops(), stop) {
			continue
		}
		f.errs[stop] = part
	}
	if len(f.errs) == 0 {
		return
	}
	f.err = fmt.Sprintf("the server refused the webhook (%d %s): see the marked field", apiErr.StatusCode, http.StatusText(apiErr.StatusCode))
	for i, s := range f.stops() {
		if _, bad := f.errs[s]; bad {
			f.focus = i
			break
		}
	}
}
