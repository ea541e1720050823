package mail

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"sandview/model/search"
	"sandview/model/termtext"
	"sandview/tui/desktop"
	"sandview/tui/service"
	"sandview/tui/ui"
)

// Pane names a focusable pane of the mail screen.
type Pane int

// The focusable panes, in the order tab moves through them.
const (
	PaneInboxes Pane = iota
	PaneEmails
	PaneReader
)

// Screen is the mail screen: it owns the state and its parts, and routes
// keys to its own keys, then to the focused pane, then to the keys the
// panes leave to it (moving the focus, acting on the open email), and the
// service's results to the state and the panes. Its parts each hold one
// role: panes (the panes, their focus and layout), previewer (the reader
// following the list's cursor), readTimer (marking the open email read),
// loadSpinner, mailStatus (what the program's chrome shows) and dropper
// (taking deleted emails out).
type Screen struct {
	ctx   *ui.Context
	cmds  commands
	set   *ui.Settings // shared with the root model
	state *mailState
	*panes
	*previewer
	*readTimer
	*loadSpinner
	*mailStatus
	*dropper
	*filler
}

// New returns the mail screen over svc, with the TUI's settings set,
// holding the inboxes the service has, each waiting for its list; callCtx
// cancels the service calls when the program ends. The message list has
// the keyboard, so enter opens the mail that just arrived.
func New(ctx *ui.Context, callCtx context.Context, svc service.Service, set *ui.Settings) *Screen {
	cmds := commands{ctx: callCtx, svc: svc, set: set, temp: desktop.NewTempDir(set.TempDir, desktop.DefaultGrace), saveDir: &saveDir{home: set.UserHome}}
	s := &Screen{ctx: ctx, cmds: cmds, set: set, state: &mailState{}, panes: &panes{}}
	s.previewer = &previewer{ctx: ctx, cmds: cmds, panes: s.panes}
	s.readTimer = &readTimer{ctx: ctx, state: s.state, panes: s.panes}
	s.mailStatus = &mailStatus{ctx: ctx, state: s.state, set: set, panes: s.panes}
	s.dropper = &dropper{ctx: ctx, state: s.state, panes: s.panes}
	s.filler = &filler{ctx: ctx, cmds: cmds, panes: s.panes}
	acts := &actions{ctx: ctx, cmds: s.cmds, state: s.state, current: func() *inboxEntry { return s.inboxes.selected() }}
	s.inboxes = newInboxList(ctx, s.state, acts)
	s.emails = newEmailList(ctx, s.state, acts, search.NewIndex(), s.hint, set.CatchAll)
	s.reader = newReader(ctx, s.state, s.cmds, acts)
	s.auth = newAuthReport(ctx, s.reader)
	s.ring = ui.NewFocusRing(s.inboxes, s.emails, s.reader)
	s.loadSpinner = &loadSpinner{ctx: ctx, list: s.emails}
	s.state.setInboxes(svc.Inboxes())
	for _, e := range s.state.entries {
		e.loading = true
	}
	s.sync()
	s.ring.Focus(int(PaneEmails))
	s.SetSize(80, 20)
	return s
}

// Init starts the loading indicator while inboxes wait for their lists.
func (s *Screen) Init() tea.Cmd {
	if s.state.loading() {
		return s.startSpinner()
	}
	return nil
}

// SetSize lays the panes out in width x height cells.
func (s *panes) SetSize(width, height int) {
	s.width, s.height = width, height
	s.lay = computeLayout(width, height, s.Focus(), s.auth.expanded)
	l := s.lay
	s.inboxes.SetSize(l.inboxes.SizeOr(width, height))
	s.emails.SetSize(l.emails.SizeOr(width, height))
	s.reader.SetSize(l.reader.SizeOr(width, height))
	s.auth.SetSize(l.auth.SizeOr(width, height))
}

// setFocus focuses a pane; layouts that show one list at a time follow.
func (s *panes) setFocus(p Pane) {
	s.ring.Focus(int(p))
	s.SetSize(s.width, s.height)
}

// Focus is the focused pane.
func (s *panes) Focus() Pane { return Pane(s.ring.At()) }

// sync points the email list at the selected inbox, and has it list again
// when the emails changed; the reader lets go of an email the list no
// longer holds.
func (s *panes) sync() {
	s.emails.setEntry(s.inboxes.selected())
	s.dropStale()
	s.emails.hold(s.Focus() == PaneReader && s.reader.id != "")
}

// dropStale closes the reader when the email it shows is not in the
// message list (another inbox is selected, the email is gone), and gives
// the list the keyboard if the reader had it: the preview then follows the
// list's cursor.
func (s *panes) dropStale() {
	if s.reader.id == "" || s.emails.lists(emailRef{s.reader.address, s.reader.id}) {
		return
	}
	s.reader.close()
	if s.Focus() == PaneReader {
		s.setFocus(PaneEmails)
	}
}

// CapturesInput reports whether a search field has the keyboard.
func (s *panes) CapturesInput() bool { return s.emails.CapturesInput() || s.reader.find.typing }

// Paste types pasted text into the search field that has the keyboard.
func (s *panes) Paste(text string) {
	if s.reader.find.typing {
		s.reader.find.field.Insert(text)
		s.reader.setFind(s.reader.find.field.Value())
		return
	}
	s.emails.Paste(text)
}

// HandleKey routes a key: the search field while it is typed; then the
// screen's keys; then the focused pane; then what the pane left. ok is
// false for a key the screen leaves to the program (quit at the top). An
// email the key opened starts its read timer.
func (s *Screen) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if !s.CapturesInput() && key.Matches(msg, s.ctx.Keys.MarkUnread) {
		s.cancelDwell()
	}
	reading := s.Focus() == PaneReader
	cmd, ok := s.handleKey(msg)
	if reading && s.Focus() != PaneReader {
		cmd = tea.Batch(cmd, s.catchUp())
	}
	return tea.Batch(cmd, s.followCursor(), s.dwell(), s.fillRows()), ok
}

func (s *Screen) handleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	defer s.sync()
	if s.CapturesInput() {
		cmd, _ := s.ring.Focused().HandleKey(msg)
		return tea.Batch(cmd, s.followCursor()), true
	}
	k := s.ctx.Keys
	reading := s.Focus() == PaneReader
	switch {
	case key.Matches(msg, k.Help):
		s.ctx.Open(ui.NewHelpDialog(s.ctx, "Keys", k.Groups(),
			readRule(ui.KeyName(k.MarkUnread), ui.KeyName(k.MarkAllRead)),
			fmt.Sprintf("With messages marked (%s, %s), %s, %s, %s and %s act on all of them.", ui.KeyName(k.Mark), ui.KeyName(k.MarkAll),
				ui.KeyName(k.Delete), ui.KeyName(k.MarkUnread), ui.KeyName(k.Save), ui.KeyName(k.SaveAll))))
	case key.Matches(msg, k.Quit):
		if !reading {
			return nil, false
		}
		s.setFocus(PaneEmails)
	case key.Matches(msg, k.NextPane):
		s.setFocus(s.Focus() + 1)
	case key.Matches(msg, k.PrevPane):
		s.setFocus(s.Focus() - 1)
	case key.Matches(msg, k.Tabs()...):
		return s.switchTab(msg), true
	case reading && key.Matches(msg, k.NextMessage, k.PrevMessage):
		return s.step(msg), true
	case !reading && key.Matches(msg, k.New):
		s.ctx.Open(newCreateForm(s.ctx, s.cmds.createInbox))
	case !reading && key.Matches(msg, k.Chaos):
		return s.openChaos(), true
	case key.Matches(msg, k.Import) && s.set.Remote != nil:
		return runThere(s.ctx, "import one", s.set.Remote.Shell+" inbox import - < inbox.json"), true
	case key.Matches(msg, k.Import):
		s.ctx.Open(ui.NewPrompt(s.ctx, "Import an inbox", "Path of an exported inbox file (JSON). It holds a secret key.", "", s.cmds.importInbox))
	case key.Matches(msg, k.Resync):
		return s.resync(), true
	case key.Matches(msg, k.AuthDetails):
		s.toggleAuth()
	case s.Focus() == PaneInboxes && key.Matches(msg, k.Search):
		s.setFocus(PaneEmails)
		s.emails.startSearch()
	default:
		cmd, handled := s.ring.Focused().HandleKey(msg)
		s.sync()
		if !handled {
			cmd, handled = s.paneLeftKey(msg)
		}
		return tea.Batch(cmd, s.followCursor()), handled
	}
	return nil, true
}

// paneLeftKey handles the keys the focused pane left: enter moves the
// focus on (on an email it opens it), esc from the reader back to the
// list (esc in the list never leaves it: it clears the marks or the
// search), and the email list passes the keys that act on the open email
// to the reader.
func (s *Screen) paneLeftKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := s.ctx.Keys
	switch s.Focus() {
	case PaneInboxes:
		if !key.Matches(msg, k.Open) {
			return nil, false
		}
		if s.inboxes.selected() != nil {
			s.setFocus(PaneEmails)
		}
		return nil, true
	case PaneEmails:
		switch {
		case key.Matches(msg, k.Open):
			return s.openSelected(), true
		case key.Matches(msg, k.Back):
			// Nothing to clear: the focus stays, so that the next keys do
			// not act on the inbox pane unseen.
			s.ctx.Flash(fmt.Sprintf("nothing marked or searched; %s moves to the inboxes", ui.KeyName(k.PrevPane)), ui.LevelInfo)
			return nil, true
		}
		return s.reader.HandleEmailKey(msg)
	}
	if key.Matches(msg, k.Back) {
		s.setFocus(PaneEmails)
		return nil, true
	}
	return nil, false
}

// switchTab shows one of the reader's tabs.
func (s *Screen) switchTab(msg tea.KeyPressMsg) tea.Cmd {
	for i, b := range s.ctx.Keys.Tabs() {
		if key.Matches(msg, b) {
			s.reader.setTab(tab(i))
		}
	}
	if s.lay.mode == ui.Narrow && s.reader.id != "" {
		s.setFocus(PaneReader)
	}
	return tea.Batch(s.reader.loadRaw(), s.reader.loadRendered())
}

// resync reloads the inbox list (importing what the keystore gained),
// reconnects the stream now if it waits to, and lists the selected inbox
// again.
func (s *Screen) resync() tea.Cmd {
	cmds := []tea.Cmd{s.cmds.rescan(true)}
	if e := s.inboxes.selected(); e != nil {
		e.loading = true
		cmds = append(cmds, s.cmds.loadEmails(e.info.EmailAddress), s.startSpinner())
		s.ctx.Flash("resyncing "+e.info.EmailAddress+"…", ui.LevelInfo)
	}
	return tea.Batch(cmds...)
}

// WatchKeystore looks for inboxes saved to the keystore by another
// program (the CLI) and loads them; the program calls it now and then.
func (s *Screen) WatchKeystore() tea.Cmd { return s.cmds.rescan(false) }

// ReloadAll lists every inbox not expired again (after the connection
// recovered: lists that failed to load or missed a deletion catch up).
func (s *Screen) ReloadAll() tea.Cmd {
	var cmds []tea.Cmd
	for _, address := range s.LiveInboxes() {
		cmds = append(cmds, s.listInbox(address))
	}
	return tea.Batch(cmds...)
}

// LiveInboxes are the addresses of the inboxes not expired and not gone.
func (s *mailStatus) LiveInboxes() []string { return s.state.liveAddresses(s.ctx.Now) }

// Totals counts the emails, the unread ones and the inboxes.
func (s *mailStatus) Totals() (emails, unread, inboxes int) {
	emails, unread = s.state.totals()
	return emails, unread, len(s.state.entries)
}

// WindowTitle names the selected inbox and its unread count.
func (s *mailStatus) WindowTitle() string {
	if e := s.inboxes.selected(); e != nil {
		return fmt.Sprintf("sandview · %s (%d unread)", e.info.EmailAddress, e.unread)
	}
	return "sandview"
}

// Banner is the line above the screen: where to send mail for the
// selected inbox ("" when not known).
func (s *mailStatus) Banner() string { return s.hint(s.inboxes.selected()) }

// hint says where to send mail for inbox e.
func (s *mailStatus) hint(e *inboxEntry) string {
	smtp := termtext.SanitizeLine(s.set.SMTPAddr)
	if smtp == "" || e == nil {
		return termtext.SanitizeLine(s.set.SMTPHint)
	}
	if s.set.CatchAll != "" && e.info.EmailAddress == s.set.CatchAll {
		return fmt.Sprintf("catch-all: mail to any address via SMTP %s shows up here", smtp)
	}
	return fmt.Sprintf("send mail to %s via SMTP %s", e.info.EmailAddress, smtp)
}

// startSpinner starts the loading indicator unless it runs.
func (s *loadSpinner) startSpinner() tea.Cmd {
	if s.spinning {
		return nil
	}
	s.spinning = true
	return s.nextSpin()
}

func (s *loadSpinner) nextSpin() tea.Cmd {
	sp := s.list.spinner
	id := sp.ID()
	return s.ctx.Tick(sp.Spinner.FPS, func(t time.Time) tea.Msg { return spinner.TickMsg{ID: id, Time: t} })
}
