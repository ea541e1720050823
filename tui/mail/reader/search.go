package reader

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"sandview/keys"
	"sandview/model/search"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// messageFind is the search inside the open message: the text typed, the
// lines of the shown tab that hold it, and which of them is current. It
// matches case-insensitively, as the list's search does, on the lines as
// they are shown; n and N go from one matching line to the next.
type messageFind struct {
	field   ui.TextField
	typing  bool
	text    string
	query   search.Query // free text: the text as one phrase
	matches []int        // lines that hold the text, in order
	current int          // index into matches
	laidOut contentKey   // the layout matches were found in
}

// active reports whether a search is shown (typed or applied).
func (f *messageFind) active() bool { return f.typing || f.text != "" }

// lines is how many lines of the pane the search takes.
func (f *messageFind) lines() int {
	if f.active() {
		return 1
	}
	return 0
}

// reset ends the search (another message is shown).
func (f *messageFind) reset() { *f = messageFind{} }

// findBar is the reader's search inside the open message: it edits the
// search, finds the lines of the shown tab that hold it, scrolls the
// reader's content to them and draws the search line under it.
type findBar struct {
	ctx      *ui.Context
	find     messageFind
	scroll   *ui.Scroller // the reader's content
	drawn    *contentKey  // what the scroller holds
	relayout func()       // lays the shown tab of the open email out again
	resize   func()       // fits the content to the lines the search takes
}

// findKey edits the search while it is typed: each edit searches again
// and shows the first match from the top of the view down.
func (r *findBar) findKey(msg tea.KeyPressMsg) {
	f := &r.find
	p := keys.DefaultPrompt()
	switch {
	case key.Matches(msg, p.Accept):
		f.typing = false
		if f.text == "" {
			f.reset()
		}
	case key.Matches(msg, p.Cancel):
		f.reset()
	default:
		f.field.HandleKey(msg)
		r.setFind(f.field.Value())
	}
	r.resize()
}

// startFind gives the search field the keyboard.
func (r *findBar) startFind() {
	r.find.typing = true
	r.find.field = ui.NewTextField(r.ctx.Edit, r.find.text)
	r.resize()
}

// setFind searches the shown lines for text and shows the first match at
// or below the top of the view.
func (r *findBar) setFind(text string) {
	r.relayout()
	f := &r.find
	f.text = strings.TrimSpace(text)
	f.query = search.Query{}
	if f.text != "" {
		f.query, _ = search.Parse(`"`+strings.ReplaceAll(strings.ReplaceAll(f.text, `\`, `\\`), `"`, `\"`)+`"`, r.ctx.Clock())
	}
	r.findAll()
	f.current = 0
	for i, line := range f.matches {
		if line >= r.scroll.Offset() {
			f.current = i
			break
		}
	}
	r.showMatch()
}

// findAll lists the lines of the shown tab that hold the text.
func (r *findBar) findAll() {
	f := &r.find
	f.matches = f.matches[:0]
	f.laidOut = *r.drawn
	if f.text == "" {
		return
	}
	for i, line := range r.scroll.Lines() {
		if len(f.query.Highlights(search.FieldBody, ansi.Strip(line))) > 0 {
			f.matches = append(f.matches, i)
		}
	}
}

// jump moves to the next (delta 1) or previous (-1) match, wrapping.
func (r *findBar) jump(delta int) {
	f := &r.find
	if f.text == "" {
		r.ctx.Flash(fmt.Sprintf("press %s to search this message first", ui.KeyName(r.ctx.Keys.Search)), ui.LevelInfo)
		return
	}
	r.relayout()
	if f.laidOut != *r.drawn {
		r.findAll()
	}
	if len(f.matches) == 0 {
		return
	}
	f.current = (f.current + delta + len(f.matches)) % len(f.matches)
	r.showMatch()
}

// showMatch scrolls the current match into view.
func (r *findBar) showMatch() {
	f := &r.find
	if f.current < len(f.matches) {
		line := f.matches[f.current]
		r.scroll.Reveal(line, line)
	}
}

// findLine is the search line under the content: the field or the text,
// and which match is shown.
func (r *findBar) findLine(width int) string {
	st := r.ctx.Styles()
	f := &r.find
	count := "no match"
	if n := len(f.matches); n > 0 {
		count = fmt.Sprintf("%d/%d", f.current+1, n)
	}
	right := st.Muted.Render(count)
	label := st.FilterPrompt.Render("/ ")
	if f.typing {
		return ui.Fit(label+f.field.View(r.ctx, true, max(width-3-len(count), 4))+" "+right, width)
	}
	k := r.ctx.Keys
	hint := st.Muted.Render(fmt.Sprintf("  %s/%s next/previous · %s ends", ui.KeyName(k.NextMatch), ui.KeyName(k.PrevMatch), ui.KeyName(k.Back)))
	return ui.Fit(label+st.Value.Render(f.text)+"  "+right+hint, width)
}

// markFound redraws the visible lines that hold the text with the matches
// marked (the line loses its own colours; its text stays as it was).
func (r *findBar) markFound(visible []string, offset int) []string {
	f := &r.find
	if f.text == "" {
		return visible
	}
	st := r.ctx.Styles()
	base := st.Value
	for i, line := range visible {
		plain := ansi.Strip(line)
		marks := f.query.Highlights(search.FieldBody, plain)
		if len(marks) == 0 {
			continue
		}
		match := st.Match
		if cur := f.current; cur < len(f.matches) && f.matches[cur] == offset+i {
			match = st.Selected.Bold(true)
		}
		visible[i] = ui.Highlighted(plain, marks, termtext.Width(plain), base, match)
	}
	return visible
}

// Typing reports whether the search inside the message has the keyboard.
func (r *Reader) Typing() bool { return r.finder.find.typing }

// Paste types pasted text into the search inside the message.
func (r *Reader) Paste(text string) {
	r.finder.find.field.Insert(text)
	r.finder.setFind(r.finder.find.field.Value())
}
