package mail

import (
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/tui/ui"
)

// New mail comes from the live feed with its metadata only (sender,
// recipients, subject, date: what the event stream carries), so a burst
// costs the service no fetch per mail. Its row shows what it has and
// marks the attachments and the auth verdict unknown; the reader fetches
// the content of the email it shows, and the filler fetches the content
// of the rows in view once the feed and the cursor rest, in one batch
// applied at once.

// fillDelay is how long the feed and the cursor must rest before the
// rows in view that lack their content are fetched: a burst, or a key
// held down, fetches nothing until it stops.
const fillDelay = 300 * time.Millisecond

// fillParallel is how many emails a fill fetches at once.
const fillParallel = 4

// fillMsg is the tick of a wait for a rest: seq is the move it was
// scheduled after; when the list moved since, it waits again.
type fillMsg struct{ seq int }

// filledMsg carries what a fill fetched, one result per email.
type filledMsg struct{ results []emailLoadedMsg }

// filler fetches the content of the rows in view that lack it.
type filler struct {
	ctx     *ui.Context
	cmds    commands
	state   *mailState
	dropper *dropper // takes out the emails the server no longer has
	*panes
	// seq counts the moves of the list (mail, keys, listings); waiting:
	// a fillMsg is on its way (one at a time, whatever the moves).
	seq     int
	waiting bool
	running bool
}

// lacksContent reports whether the email at pos of the list's scope was
// listed without its content and a fill may still fetch it (one could
// not before: the reader asks when it is shown).
func (l *emailList) lacksContent(pos int) bool {
	m := l.scope.emails[pos]
	return !m.HasContent && m.Problem == "" && !l.scope.owner(pos).unfetched[m.ID]
}

// missing lists the emails in view listed without their content; while
// the search needs content (auth:fail, a word of the body), every email
// it searches that lacks it, so that the matches are true.
func (f *filler) missing() []emailRef {
	l := f.emails
	from, to := l.list.Visible()
	all := l.find.query.NeedsContent()
	if all {
		from, to = 0, len(l.scope.emails)
	}
	var out []emailRef
	for i := from; i < to; i++ {
		pos := i
		if !all {
			pos = l.filtered[i]
		}
		if l.lacksContent(pos) {
			out = append(out, emailRef{l.scope.owner(pos).info.EmailAddress, l.scope.emails[pos].ID})
		}
	}
	return out
}

// fillRows notes a move of the list and, when rows in view lack their
// content, waits fillDelay for a rest before fetching them; nothing while
// a fill runs. One wait at a time: a burst costs a tick a fillDelay, not
// one a frame.
func (f *filler) fillRows() tea.Cmd {
	f.seq++
	if f.running || f.waiting || len(f.missing()) == 0 {
		return nil
	}
	return f.wait()
}

// wait schedules the fillMsg of the latest move.
func (f *filler) wait() tea.Cmd {
	f.waiting = true
	seq := f.seq
	return f.ctx.Tick(fillDelay, func(time.Time) tea.Msg { return fillMsg{seq: seq} })
}

// fill fetches the rows in view that lack their content if the list
// rested since the move seq; else it waits again.
func (f *filler) fill(seq int) tea.Cmd {
	f.waiting = false
	if f.running {
		return nil
	}
	if seq != f.seq {
		return f.wait()
	}
	refs := f.missing()
	if len(refs) == 0 {
		return nil
	}
	f.running = true
	cmds := f.cmds
	return func() tea.Msg {
		results := make([]emailLoadedMsg, len(refs))
		slots := make(chan struct{}, fillParallel)
		var wg sync.WaitGroup
		for k, r := range refs {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				ctx, cancel := cmds.call()
				defer cancel()
				e, err := cmds.svc.Email(ctx, r.address, r.id)
				if e.ID == "" {
					e.ID = r.id
				}
				results[k] = emailLoadedMsg{address: r.address, email: e, err: err}
			})
		}
		wg.Wait()
		return filledMsg{results: results}
	}
}

// filled applies a fill: the emails fetched take their content, those
// deleted meanwhile leave; a failure is said once for the batch and the
// email not asked again.
func (f *filler) filled(msg filledMsg) {
	f.running = false
	var gone []emailRef
	var failed []string
	for _, r := range msg.results {
		ref := emailRef{r.address, r.email.ID}
		if isGone(r.err) {
			gone = append(gone, ref)
			continue
		}
		e, _ := f.state.find(r.address)
		if e == nil {
			continue
		}
		if _, ok := e.email(ref.id); !ok { // deleted meanwhile
			continue
		}
		if r.err != nil && r.email.Problem == "" {
			e.unfetched[ref.id] = true
			failed = append(failed, ui.ErrorText(r.err))
			continue
		}
		applyLoaded(e, r.email)
	}
	f.emails.refresh()
	if len(gone) > 0 {
		f.dropper.dropGone(gone)
	}
	if len(failed) > 0 {
		f.ctx.Flash(fmt.Sprintf("could not load the content of %s: %s", ui.Plural(len(failed), "email", "emails"), strings.Join(failed[:1], "")), ui.LevelError)
	}
}
