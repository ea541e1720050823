package reader

import (
	"strings"

	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// tabBar is the reader's tabs, in the order of the bar and of
// keys.Tabs, and which of them is shown.
type tabBar struct {
	ctx  *ui.Context
	tabs []readerTab
	tab  Tab
}

// squeezer is a tab with a label shorter still than its short one, used
// before any tab loses its label.
type squeezer interface{ squeezed() string }

// tabLine renders the tab bar in width cells (the last tab's closing pad
// cut when that is all it takes): every tab's full label when they fit,
// else the short ones, then the squeezed ones; when even those do not fit, tabs
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
	barWidth := func() int {
		w := 0
		for t := range labels {
			w += termtext.Width(item(t))
		}
		return w
	}
	// The last tab's closing pad is cut before any label shortens.
	fits := func() bool { return barWidth()-1 <= width }
	if !fits() {
		for t, rt := range r.tabs {
			labels[t] = rt.label(m, true)
		}
	}
	if !fits() {
		for t, rt := range r.tabs {
			if s, ok := rt.(squeezer); ok {
				labels[t] = s.squeezed()
			}
		}
	}
	for _, t := range r.dropOrder() {
		if fits() {
			break
		}
		labels[t] = ""
	}
	cutPad := barWidth() > width
	var sb strings.Builder
	for t := range labels {
		it := item(t)
		if cutPad && t == len(labels)-1 {
			it = strings.TrimSuffix(it, " ")
		}
		if t == int(r.tab) {
			sb.WriteString(st.TabActive.Render(it))
		} else {
			sb.WriteString(st.TabInactive.Render(it))
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
