package webhooks

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/model/termtext"
	"sandview/theme"
	"sandview/tui/ui"
)

// formLabelWidth is the width of the label column of the webhook form.
const formLabelWidth = 15

// View draws the form; when it is taller than height lines it is scrolled
// to keep the focused field in sight.
func (f *form) View(width, height int) string {
	width = min(width, ui.DialogWidth)
	st := f.ctx.Styles()
	inner := max(width-4, 20)
	fieldW := max(inner-formLabelWidth, 8)
	cur := f.current()
	title := "New webhook"
	if f.editing != nil {
		title = "Edit webhook " + f.editing.ID
	}
	lines := []string{st.DialogTitle.Render(title), ""}
	focusLine := 0
	label := func(stop formStop, name string) string {
		if stop == cur {
			focusLine = len(lines)
			return st.FieldFocused.Render(fmt.Sprintf("› %-*s", formLabelWidth-2, name))
		}
		return st.Label.Render(fmt.Sprintf("  %-*s", formLabelWidth-2, name))
	}
	errLine := func(stop formStop) {
		if e, ok := f.errs[stop]; ok {
			for _, l := range ui.Wrap("✗ "+e, inner-formLabelWidth) {
				lines = append(lines, strings.Repeat(" ", formLabelWidth)+st.FieldError.Render(l))
			}
		}
	}
	text := func(stop formStop, name string, fl *ui.TextField) {
		l := label(stop, name)
		lines = append(lines, l+fl.View(f.ctx, stop == cur && !f.busy, fieldW))
		errLine(stop)
	}
	hint := func(s string) {
		lines = append(lines, st.Muted.Render(ansi.Truncate(strings.Repeat(" ", formLabelWidth)+s, inner, "…")))
	}

	if f.editing == nil {
		s := formStop{kind: stopScope}
		lines = append(lines, label(s, "Scope")+f.scope.View(st, ui.Verbatim, "", fieldW))
	} else {
		scope := f.editing.Scope
		if f.editing.InboxEmail != "" {
			scope += " " + f.editing.InboxEmail
		}
		lines = append(lines, st.Label.Render(fmt.Sprintf("  %-*s", formLabelWidth-2, "Scope"))+st.Muted.Render(scope))
	}
	text(formStop{kind: stopURL}, "URL", &f.url)

	s := formStop{kind: stopEvents}
	lines = append(lines, label(s, "Events")+f.eventsView(st, s == cur))
	errLine(s)

	s = formStop{kind: stopTemplate}
	lines = append(lines, label(s, "Template")+f.template.View(st, func(v string) string { return f.tplLabel[v] }, "", fieldW))
	errLine(s)
	if f.tplNote != "" {
		hint(f.tplNote)
	}
	if f.custom() {
		text(formStop{kind: stopBody}, "Body", &f.body)
		hint(`JSON with placeholders, e.g. {"text":"{{data.subject}}"}`)
	}

	s = formStop{kind: stopFilter}
	lines = append(lines, label(s, "Filter")+f.filter.View(st, filterLabel, "", fieldW))
	errLine(s)
	if f.filter.Index > 0 {
		for i := range f.rules {
			lines = append(lines, f.ruleView(i, cur, &focusLine, len(lines), inner))
			for _, k := range []stopKind{stopRuleField, stopRuleOp, stopRuleValue, stopRuleCase} {
				errLine(formStop{kind: k, rule: i})
			}
		}
		hint(fmt.Sprintf("%s adds a rule · %s removes it · field: subject, from.address, header.X…", ui.KeyName(f.keys.AddRule), ui.KeyName(f.keys.RemoveRule)))
	}
	text(formStop{kind: stopDescription}, "Description", &f.desc)
	lines = append(lines, "")
	switch {
	case f.busy:
		lines = append(lines, st.Muted.Render("Saving the webhook…"))
	case f.err != "":
		lines = append(lines, ui.WrapStyled(st.FieldError.Render, "✗ "+f.err, inner)...)
	default:
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%s saves · %s cancels · %s ticks/chooses", ui.KeyName(f.keys.Submit), ui.KeyName(f.keys.Cancel), ui.KeyName(f.keys.Toggle))))
	}
	return ui.Box(f.ctx, scrolled(lines, focusLine, height), width)
}

// scrolled keeps the title and a window of lines around the focus when
// the form is taller than maxLines.
func scrolled(lines []string, focusLine, maxLines int) []string {
	limit := maxLines - 2 // the dialog's borders
	if maxLines <= 0 || len(lines) <= limit || limit < 6 {
		return lines
	}
	head, body := lines[:2], lines[2:]
	rows := limit - 2
	focusLine -= 2
	start := ui.Clamp(focusLine-rows/2, 0, len(body)-rows)
	return append(append([]string{}, head...), body[start:start+rows]...)
}

func filterLabel(v string) string {
	switch v {
	case model.FilterModeAll:
		return "all rules match"
	case model.FilterModeAny:
		return "any rule matches"
	}
	return v
}

// eventsView is the multi-select of events: [x] ticked, the cursor
// highlighted when focused.
func (f *form) eventsView(st *theme.Styles, focused bool) string {
	var parts []string
	for i, ev := range receiverEvents() {
		box := "[ ] "
		if f.events[i] {
			box = "[x] "
		}
		name := strings.TrimPrefix(ev, "email.")
		switch {
		case focused && i == f.evCursor:
			parts = append(parts, st.ChoiceActive.Render(box+name))
		case f.events[i]:
			parts = append(parts, st.Value.Render(box+name))
		default:
			parts = append(parts, st.Choice.Render(box+name))
		}
	}
	return strings.Join(parts, " ")
}

// ruleView renders one rule on one line: field, operator, value, case.
func (f *form) ruleView(i int, cur formStop, focusLine *int, line, inner int) string {
	st := f.ctx.Styles()
	r := &f.rules[i]
	at := func(k stopKind) bool { return cur == formStop{kind: k, rule: i} }
	name := fmt.Sprintf("  rule %-*d", formLabelWidth-7, i+1)
	if cur.rule == i && cur.kind >= stopRuleField && cur.kind <= stopRuleCase {
		*focusLine = line
		name = st.FieldFocused.Render(fmt.Sprintf("› rule %-*d", formLabelWidth-7, i+1))
	} else {
		name = st.Label.Render(name)
	}
	caseText := "aA any case"
	if r.caseSensitive {
		caseText = "Aa exact case"
	}
	caseView := st.Choice.Render(caseText)
	if at(stopRuleCase) {
		caseView = st.ChoiceActive.Render(caseText)
	}
	opW := 13
	valueW := max(inner-formLabelWidth-14-opW-termtext.Width(caseText)-3, 6)
	op := r.op.View(st, ui.Verbatim, "", opW)
	return name + r.field.View(f.ctx, at(stopRuleField) && !f.busy, 14) + " " + ui.Fit(op, opW) + " " +
		r.value.View(f.ctx, at(stopRuleValue) && !f.busy, valueW) + " " + caseView
}
