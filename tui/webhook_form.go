package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
	"sandview/model"
)

// Limits the form checks before asking the server.
const (
	maxHookURLLen         = 2048
	maxHookDescriptionLen = 500
	maxHookRules          = 10
	maxRuleValueLen       = 1000
)

// stopKind is a kind of focusable place of the webhook form.
type stopKind int

const (
	stopScope stopKind = iota
	stopURL
	stopEvents
	stopTemplate
	stopBody
	stopFilter
	stopRuleField
	stopRuleOp
	stopRuleValue
	stopRuleCase
	stopDescription
)

// formStop is one focusable place; rule is the rule row for rule stops.
type formStop struct {
	kind stopKind
	rule int
}

// ruleRow is one filter rule being edited.
type ruleRow struct {
	field         field
	op            choice
	value         field
	caseSensitive bool
}

func newRuleRow(r model.FilterRule) ruleRow {
	op := choice{options: model.FilterOperators()}
	if i := slices.Index(op.options, r.Operator); i >= 0 {
		op.index = i
	}
	if r.Field == "" {
		r.Field = model.FilterFields()[0]
	}
	return ruleRow{field: newField(r.Field), op: op, value: newField(r.Value), caseSensitive: r.CaseSensitive}
}

// webhookForm creates a webhook or edits one.
type webhookForm struct {
	keys     keys.WebhookFormKeyMap
	editing  *model.Webhook // nil when creating
	scope    choice         // "global" then inbox addresses (create only)
	url      field
	events   []bool // per receiverEvents()
	evCursor int
	template choice // template values, then "custom"
	tplLabel map[string]string
	tplNote  string // why the templates are the built-in names, if so
	body     field
	ctype    string // custom content type, kept from the edited webhook
	filter   choice // none, all, any
	reqAuth  *bool  // kept from the edited webhook
	rules    []ruleRow
	desc     field

	focus    int
	errs     map[formStop]string
	err      string
	busy     bool
	maxLines int

	create func(inbox string, req model.CreateWebhookRequest) tea.Cmd
	update func(req model.UpdateWebhookRequest) tea.Cmd
}

var filterChoices = []string{"no filter", model.FilterModeAll, model.FilterModeAny}

// newWebhookForm builds the form; editing is nil for a new webhook.
// templates come from the templates endpoint (the built-ins when it
// failed); inboxes are the scopes a new webhook may have besides global.
func newWebhookForm(editing *model.Webhook, templates []model.TemplateOption, inboxes []string) *webhookForm {
	f := &webhookForm{
		keys:     keys.DefaultWebhookForm(),
		editing:  editing,
		scope:    choice{options: append([]string{model.ScopeGlobal}, inboxes...)},
		events:   []bool{true, false, false},
		tplLabel: map[string]string{},
		filter:   choice{options: filterChoices},
		errs:     map[formStop]string{},
	}
	if len(templates) == 0 {
		for _, t := range model.BuiltinTemplates() {
			templates = append(templates, model.TemplateOption{Label: t, Value: t})
		}
	}
	for _, t := range templates {
		f.template.options = append(f.template.options, t.Value)
		f.tplLabel[t.Value] = t.Label
	}
	f.template.options = append(f.template.options, model.TemplateCustom)
	f.tplLabel[model.TemplateCustom] = "custom body"
	if editing == nil {
		f.url = newField("https://")
		return f
	}
	h := *editing
	f.url, f.desc = newField(h.URL), newField(h.Description)
	for i, ev := range receiverEvents() {
		f.events[i] = slices.Contains(h.Events, ev)
	}
	if h.Template != nil {
		f.setTemplate(*h.Template)
	}
	if h.Filter != nil {
		f.filter.index = max(slices.Index(filterChoices, h.Filter.Mode), 1)
		f.reqAuth = h.Filter.RequireAuth
		for _, r := range h.Filter.Rules {
			f.rules = append(f.rules, newRuleRow(r))
		}
	}
	return f
}

func (f *webhookForm) setTemplate(t model.WebhookTemplate) {
	typ := t.Type
	if t.Body != "" {
		typ = model.TemplateCustom
	}
	i := slices.Index(f.template.options, typ)
	if i < 0 {
		// A template this server's list does not name: keep it choosable.
		f.template.options = slices.Insert(f.template.options, len(f.template.options)-1, typ)
		f.tplLabel[typ] = typ
		i = len(f.template.options) - 2
	}
	f.template.index = i
	f.body, f.ctype = newField(strings.ReplaceAll(t.Body, "\n", " ")), t.ContentType
}

func (f *webhookForm) custom() bool {
	return f.template.options[f.template.index] == model.TemplateCustom
}

// stops lists the focusable places in order.
func (f *webhookForm) stops() []formStop {
	var s []formStop
	if f.editing == nil {
		s = append(s, formStop{kind: stopScope})
	}
	s = append(s, formStop{kind: stopURL}, formStop{kind: stopEvents}, formStop{kind: stopTemplate})
	if f.custom() {
		s = append(s, formStop{kind: stopBody})
	}
	s = append(s, formStop{kind: stopFilter})
	if f.filter.index > 0 {
		for i := range f.rules {
			for _, k := range []stopKind{stopRuleField, stopRuleOp, stopRuleValue, stopRuleCase} {
				s = append(s, formStop{kind: k, rule: i})
			}
		}
	}
	return append(s, formStop{kind: stopDescription})
}

func (f *webhookForm) current() formStop {
	s := f.stops()
	f.focus = clampInt(f.focus, 0, len(s)-1)
	return s[f.focus]
}

// focusOn moves the focus to stop, if the form shows it.
func (f *webhookForm) focusOn(stop formStop) {
	if i := slices.Index(f.stops(), stop); i >= 0 {
		f.focus = i
	}
}

func (f *webhookForm) handleKey(sh *shared, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := f.keys
	switch {
	case key.Matches(msg, k.Cancel):
		return nil, true
	case f.busy:
		return nil, false
	case key.Matches(msg, k.Submit):
		return f.submit(), false
	case key.Matches(msg, k.Next):
		f.focus = (f.focus + 1) % len(f.stops())
		return nil, false
	case key.Matches(msg, k.Prev):
		n := len(f.stops())
		f.focus = (f.focus + n - 1) % n
		return nil, false
	case key.Matches(msg, k.AddRule):
		f.addRule()
		return nil, false
	case key.Matches(msg, k.RemoveRule):
		f.removeRule()
		return nil, false
	}
	stop := f.current()
	switch stop.kind {
	case stopURL:
		f.url.handleKey(sh, msg)
	case stopBody:
		f.body.handleKey(sh, msg)
	case stopDescription:
		f.desc.handleKey(sh, msg)
	case stopRuleField:
		f.rules[stop.rule].field.handleKey(sh, msg)
	case stopRuleValue:
		f.rules[stop.rule].value.handleKey(sh, msg)
	case stopEvents:
		switch {
		case key.Matches(msg, k.Toggle):
			f.events[f.evCursor] = !f.events[f.evCursor]
		case key.Matches(msg, k.Left):
			f.evCursor = max(f.evCursor-1, 0)
		case key.Matches(msg, k.Right):
			f.evCursor = min(f.evCursor+1, len(f.events)-1)
		}
	case stopRuleCase:
		if key.Matches(msg, k.Toggle, k.Left, k.Right) {
			r := &f.rules[stop.rule]
			r.caseSensitive = !r.caseSensitive
		}
	default:
		c := f.choiceAt(stop)
		switch {
		case key.Matches(msg, k.Toggle, k.Right):
			c.next(1)
		case key.Matches(msg, k.Left):
			c.next(-1)
		}
		if stop.kind == stopFilter && f.filter.index > 0 && len(f.rules) == 0 {
			f.rules = append(f.rules, newRuleRow(model.FilterRule{}))
		}
	}
	return nil, false
}

// choiceAt is the choice behind a choice stop.
func (f *webhookForm) choiceAt(stop formStop) *choice {
	switch stop.kind {
	case stopScope:
		return &f.scope
	case stopTemplate:
		return &f.template
	case stopRuleOp:
		return &f.rules[stop.rule].op
	}
	return &f.filter
}

// addRule adds an empty rule (turning the filter on) and focuses it.
func (f *webhookForm) addRule() {
	if len(f.rules) >= maxHookRules {
		f.err = fmt.Sprintf("a filter holds at most %d rules", maxHookRules)
		return
	}
	if f.filter.index == 0 {
		f.filter.index = 1
	}
	f.rules = append(f.rules, newRuleRow(model.FilterRule{}))
	f.focusOn(formStop{kind: stopRuleField, rule: len(f.rules) - 1})
}

// removeRule removes the rule under the focus (the last one otherwise).
func (f *webhookForm) removeRule() {
	if len(f.rules) == 0 || f.filter.index == 0 {
		return
	}
	i := len(f.rules) - 1
	if stop := f.current(); stop.kind >= stopRuleField && stop.kind <= stopRuleCase {
		i = stop.rule
	}
	f.rules = slices.Delete(f.rules, i, i+1)
	f.errs = map[formStop]string{}
	if len(f.rules) == 0 {
		f.focusOn(formStop{kind: stopFilter})
		return
	}
	f.focusOn(formStop{kind: stopRuleField, rule: min(i, len(f.rules)-1)})
}

func (f *webhookForm) paste(text string) {
	switch stop := f.current(); stop.kind {
	case stopURL:
		f.url.insert(text)
	case stopBody:
		f.body.insert(text)
	case stopDescription:
		f.desc.insert(text)
	case stopRuleField:
		f.rules[stop.rule].field.insert(text)
	case stopRuleValue:
		f.rules[stop.rule].value.insert(text)
	}
}

func (f *webhookForm) helpKeys() help.KeyMap { return f.keys }
