package mail

import (
	"strings"

	"sandview/internal/termtext"
	"sandview/model"
	"sandview/tui/ui"
)

// tabBar is the reader's tabs, in the order of the bar and of
// keys.Tabs, and which of them is shown.
type tabBar struct {
	ctx  *ui.Context
	tabs []readerTab
	tab  tab
}

// tabLine renders the tab bar in width cells: every tab's full label
// when they fit, else the short ones; when even those do not fit, tabs
// lose their labels to their number one by one (those that count nothing
// first, from the right) and the shown tab keeps its label the longest.
func (r *tabBar) tabLine(m model.Email, width int) string {
	st := r.ctx.Styles()
	tabKeys := r.ctx.Keys.Tabs()
	labels := make([]string, len(r.tabs))
	for t, rt := range r.tabs {
		labels[t] = rt.label(m, false)
	}
	item := func(t int) string {
		name := ""
		if t < len(tabKeys) {
			name = ui.KeyName(tabKeys[t])
		}
		if labels[t] == "" {
			return " " + name + " "
		}
		return " " + name + " " + labels[t] + " "
	}
	fits := func() bool {
		w := 0
		for t := range labels {
			w += termtext.Width(item(t))
		}
		return w <= width
	}
	if !fits() {
		for t, rt := range r.tabs {
			labels[t] = rt.label(m, true)
		}
	}
	for _, t := range r.dropOrder() {
		if fits() {
			break
		}
		labels[t] = ""
	}
	var sb strings.Builder
	for t := range labels {
		if t == int(r.tab) {
			sb.WriteString(st.TabActive.Render(item(t)))
		} else {
			sb.WriteString(st.TabInactive.Render(item(t)))
		}
	}
	return sb.String()
}

// dropOrder is the order in which tabs lose their labels when the bar is
// short of room: the tabs that count nothing from the right, then the
// list tabs (their label holds a count) from the right, then the shown
// tab.
func (r *tabBar) dropOrder() []int {
	var plain, counting []int
	for t := len(r.tabs) - 1; t >= 0; t-- {
		switch _, isList := r.tabs[t].(listTab); {
		case t == int(r.tab):
		case isList:
			counting = append(counting, t)
		default:
			plain = append(plain, t)
		}
	}
	return append(append(plain, counting...), int(r.tab))
}
