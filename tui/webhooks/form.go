package webhooks

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
	"sandview/model"
	"sandview/tui/ui"
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
	field         ui.TextField
	op            ui.Choice
	value         ui.TextField
	caseSensitive bool
}

func newRuleRow(edit keys.EditKeyMap, r model.FilterRule) ruleRow {
	op := ui.Choice{Options: model.FilterOperators()}
	if i := slices.Index(op.Options, r.Operator); i >= 0 {
		op.Index = i
	}
	if r.Field == "" {
		r.Field = model.FilterFields()[0]
	}
	return ruleRow{field: ui.NewTextField(edit, r.Field), op: op, value: ui.NewTextField(edit, r.Value), caseSensitive: r.CaseSensitive}
}

// form is the dialog that creates a webhook or edits one.
type form struct {
	ctx      *ui.Context
	keys     keys.WebhookFormKeyMap
	editing  *model.Webhook // nil when creating
	scope    ui.Choice      // "global" then inbox addresses (create only)
	url      ui.TextField
	events   []bool // per receiverEvents()
	evCursor int
	template ui.Choice // template values, then "custom"
	tplLabel map[string]string
	tplNote  string // why the templates are the built-in names, if so
	body     ui.TextField
	ctype    string    // custom content type, kept from the edited webhook
	filter   ui.Choice // none, all, any
	reqAuth  *bool     // kept from the edited webhook
	rules    []ruleRow
	desc     ui.TextField

	focus int
	errs  map[formStop]string
	err   string
	busy  bool

	create func(inbox string, req model.CreateWebhookRequest) tea.Cmd
	update func(req model.UpdateWebhookRequest) tea.Cmd
}

// filterChoices are the filter modes the form offers.
func filterChoices() []string { return []string{"no filter", model.FilterModeAll, model.FilterModeAny} }

// newForm builds the form; editing is nil for a new webhook. templates
// come from the templates endpoint (the built-ins when it failed); inboxes
// are the scopes a new webhook may have besides global.
func newForm(ctx *ui.Context, editing *model.Webhook, templates []model.TemplateOption, inboxes []string) *form {
	f := &form{
		ctx:      ctx,
		keys:     keys.DefaultWebhookForm(),
		editing:  editing,
		scope:    ui.Choice{Options: append([]string{model.ScopeGlobal}, inboxes...)},
		events:   []bool{true, false, false},
		tplLabel: map[string]string{},
		filter:   ui.Choice{Options: filterChoices()},
		errs:     map[formStop]string{},
		body:     ui.NewTextField(ctx.Edit, ""),
		desc:     ui.NewTextField(ctx.Edit, ""),
	}
	if len(templates) == 0 {
		for _, t := range model.BuiltinTemplates() {
			templates = append(templates, model.TemplateOption{Label: t, Value: t})
		}
	}
	for _, t := range templates {
		f.template.Options = append(f.template.Options, t.Value)
		f.tplLabel[t.Value] = t.Label
	}
	f.template.Options = append(f.template.Options, model.TemplateCustom)
	f.tplLabel[model.TemplateCustom] = "custom body"
	if editing == nil {
		f.url = ui.NewTextField(ctx.Edit, "https://")
		return f
	}
	h := *editing
	f.url, f.desc = ui.NewTextField(ctx.Edit, h.URL), ui.NewTextField(ctx.Edit, h.Description)
	for i, ev := range receiverEvents() {
		f.events[i] = slices.Contains(h.Events, ev)
	}
	if h.Template != nil {
		f.setTemplate(*h.Template)
	}
	if h.Filter != nil {
		f.filter.Index = max(slices.Index(filterChoices(), h.Filter.Mode), 1)
		f.reqAuth = h.Filter.RequireAuth
		for _, r := range h.Filter.Rules {
			f.rules = append(f.rules, newRuleRow(ctx.Edit, r))
		}
	}
	return f
}

func (f *form) setTemplate(t model.WebhookTemplate) {
	typ := t.Type
	if t.Body != "" {
		typ = model.TemplateCustom
	}
	i := slices.Index(f.template.Options, typ)
	if i < 0 {
		// A template this server's list does not name: keep it choosable.
		f.template.Options = slices.Insert(f.template.Options, len(f.template.Options)-1, typ)
		f.tplLabel[typ] = typ
		i = len(f.template.Options) - 2
	}
	f.template.Index = i
	f.body, f.ctype = ui.NewTextField(f.ctx.Edit, strings.ReplaceAll(t.Body, "\n", " ")), t.ContentType
}

func (f *form) custom() bool { return f.template.Value() == model.TemplateCustom }

// stops lists the focusable places in order.
func (f *form) stops() []formStop {
	var s []formStop
	if f.editing == nil {
		s = append(s, formStop{kind: stopScope})
	}
	s = append(s, formStop{kind: stopURL}, formStop{kind: stopEvents}, formStop{kind: stopTemplate})
	if f.custom() {
		s = append(s, formStop{kind: stopBody})
	}
	s = append(s, formStop{kind: stopFilter})
	if f.filter.Index > 0 {
		for i := range f.rules {
			for _, k := range []stopKind{stopRuleField, stopRuleOp, stopRuleValue, stopRuleCase} {
				s = append(s, formStop{kind: k, rule: i})
			}
		}
	}
	return append(s, formStop{kind: stopDescription})
}

func (f *form) current() formStop {
	s := f.stops()
	f.focus = ui.Clamp(f.focus, 0, len(s)-1)
	return s[f.focus]
}

// focusOn moves the focus to stop, if the form shows it.
func (f *form) focusOn(stop formStop) {
	if i := slices.Index(f.stops(), stop); i >= 0 {
		f.focus = i
	}
}

// HandleKey edits the focused field, moves between fields, adds or
// removes a rule, submits or cancels.
func (f *form) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
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
	if fl := f.textField(stop); fl != nil {
		fl.HandleKey(msg)
		return nil, false
	}
	switch stop.kind {
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
			c.Next(1)
		case key.Matches(msg, k.Left):
			c.Next(-1)
		}
		if stop.kind == stopFilter && f.filter.Index > 0 && len(f.rules) == 0 {
			f.rules = append(f.rules, newRuleRow(f.ctx.Edit, model.FilterRule{}))
		}
	}
	return nil, false
}

// choiceAt is the choice behind a choice stop.
func (f *form) choiceAt(stop formStop) *ui.Choice {
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
func (f *form) addRule() {
	if len(f.rules) >= maxHookRules {
		f.err = fmt.Sprintf("a filter holds at most %d rules", maxHookRules)
		return
	}
	if f.filter.Index == 0 {
		f.filter.Index = 1
	}
	f.rules = append(f.rules, newRuleRow(f.ctx.Edit, model.FilterRule{}))
	f.focusOn(formStop{kind: stopRuleField, rule: len(f.rules) - 1})
}

// removeRule removes the rule under the focus (the last one otherwise).
func (f *form) removeRule() {
	if len(f.rules) == 0 || f.filter.Index == 0 {
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

// textField is the text field at a stop, nil for the other stops.
func (f *form) textField(stop formStop) *ui.TextField {
	switch stop.kind {
	case stopURL:
		return &f.url
	case stopBody:
		return &f.body
	case stopDescription:
		return &f.desc
	case stopRuleField:
		return &f.rules[stop.rule].field
	case stopRuleValue:
		return &f.rules[stop.rule].value
	}
	return nil
}

// Paste inserts pasted text into the focused text field.
func (f *form) Paste(text string) {
	if fl := f.textField(f.current()); fl != nil {
		fl.Insert(text)
	}
}

// ShortHelp lists the form's keys.
func (f *form) ShortHelp() []key.Binding { return f.keys.ShortHelp() }

// FullHelp lists the form's keys.
func (f *form) FullHelp() [][]key.Binding { return f.keys.FullHelp() }
