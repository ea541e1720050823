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
	"sandview/tui/mail/reader"
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
// spinner (the loading indicator), status (what the program's chrome
// shows), dropper (taking deleted emails out), filler (fetching the
// content of the rows in view) and loader (listing the inboxes and
// applying what the service sends); acts (the actions on emails and
// inboxes) also runs an inbox's chaos.
type Screen struct {
	ctx       *ui.Context
	cmds      commands
	set       *ui.Settings // shared with the root model
	state     *mailState
	acts      *actions
	panes     *panes
	previewer *previewer
	readTimer *readTimer
	spinner   *loadSpinner
	status    *mailStatus
	dropper   *dropper
	filler    *filler
	loader    *loader
}

// loadSpinner runs the loading indicator the email list shows while
// inboxes wait for their lists.
type loadSpinner struct {
	ctx      *ui.Context
	list     *emailList
	spinning bool
}

// mailStatus is what the program's chrome shows of the mail: the window
// title, the banner saying where to send mail, the totals and the live
// inboxes.
type mailStatus struct {
	ctx   *ui.Context
	state *mailState
	set   *ui.Settings
	panes *panes
}

// New returns the mail screen over svc, with the TUI's settings set,
// holding the inboxes the service has, each waiting for its list; callCtx
// cancels the service calls when the program ends. The message list has
// the keyboard, so enter opens the mail that just arrived.
func New(ctx *ui.Context, callCtx context.Context, svc service.Service, set *ui.Settings) *Screen {
	cmds := commands{ctx: callCtx, svc: svc, set: set, temp: desktop.NewTempDir(set.TempDir, desktop.DefaultGrace), saveDir: &saveDir{home: set.UserHome}}
	p := &panes{}
	s := &Screen{ctx: ctx, cmds: cmds, set: set, state: &mailState{}, panes: p}
	s.previewer = &previewer{ctx: ctx, cmds: cmds, panes: p}
	s.readTimer = &readTimer{ctx: ctx, state: s.state, panes: p}
	s.status = &mailStatus{ctx: ctx, state: s.state, set: set, panes: p}
	s.dropper = &dropper{ctx: ctx, state: s.state, panes: p}
	s.filler = &filler{ctx: ctx, cmds: cmds, state: s.state, dropper: s.dropper, panes: p}
	s.acts = &actions{ctx: ctx, cmds: s.cmds, state: s.state, current: func() *inboxEntry { return p.inboxes.selected() }}
	p.inboxes = newInboxList(ctx, s.state, s.acts)
	p.emails = newEmailList(ctx, s.state, s.acts, search.NewIndex(), s.status.hint, set.CatchAll)
	p.reader = reader.New(ctx, callCtx, set, readerHost{ctx: ctx, cmds: cmds, state: s.state, acts: s.acts})
	p.auth = newAuthReport(ctx, p.reader)
	p.ring = ui.NewFocusRing(p.inboxes, p.emails, p.reader)
	s.spinner = &loadSpinner{ctx: ctx, list: p.emails}
	s.loader = &loader{ctx: ctx, cmds: cmds, state: s.state, panes: p, spinner: s.spinner, dropper: s.dropper}
	s.state.setInboxes(svc.Inboxes())
	for _, e := range s.state.entries {
		e.loading = true
	}
	p.sync()
	p.ring.Focus(int(PaneEmails))
	p.SetSize(80, 20)
	return s
}

// Init starts the loading indicator while inboxes wait for their lists.
func (s *Screen) Init() tea.Cmd {
	if s.state.loading() {
		return s.spinner.startSpinner()
	}
	return nil
}

// SetSize lays the panes out in width x height cells.
func (s *Screen) SetSize(width, height int) { s.panes.SetSize(width, height) }

// View draws the visible panes.
func (s *Screen) View() string { return s.panes.View() }

// Focus is the focused pane.
func (s *Screen) Focus() Pane { return s.panes.Focus() }

// CapturesInput reports whether a search field has the keyboard.
func (s *Screen) CapturesInput() bool { return s.panes.CapturesInput() }

// Paste types pasted text into the search field that has the keyboard.
func (s *Screen) Paste(text string) { s.panes.Paste(text) }

// Resized has the reader catch up with the list's cursor after a resize.
func (s *Screen) Resized() tea.Cmd { return s.previewer.Resized() }

// Leave voids the read timer while another screen is shown.
func (s *Screen) Leave() { s.readTimer.Leave() }

// Return starts the read timer again when the mail screen is shown again.
func (s *Screen) Return() tea.Cmd { return s.readTimer.Return() }

// Picture is the picture the screen shows, its cells relative to the
// screen, when the reader shows one.
func (s *Screen) Picture() (reader.Picture, bool) {
	at := s.panes.lay.Of(s.panes.reader)
	if at.W == 0 {
		return reader.Picture{}, false
	}
	p, ok := s.panes.reader.Picture()
	p.At.X += at.X
	p.At.Y += at.Y
	return p, ok
}

// Close removes the files the screen wrote to open them with other
// programs (HTML parts, attachments); the program calls it as it ends.
func (s *Screen) Close() error { return s.cmds.temp.Remove() }

// HandleKey routes a key: the search field while it is typed; then the
// screen's keys; then the focused pane; then what the pane left. ok is
// false for a key the screen leaves to the program (quit at the top). An
// email the key opened starts its read timer.
func (s *Screen) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if !s.CapturesInput() && key.Matches(msg, s.ctx.Keys.MarkUnread) {
		s.readTimer.cancelDwell()
	}
	reading := s.Focus() == PaneReader
	cmd, ok := s.handleKey(msg)
	if reading && s.Focus() != PaneReader {
		cmd = tea.Batch(cmd, s.previewer.catchUp())
	}
	return tea.Batch(cmd, s.previewer.followCursor(), s.readTimer.dwell(), s.filler.fillRows()), ok
}

func (s *Screen) handleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	defer s.panes.sync()
	if s.CapturesInput() {
		cmd, _ := s.panes.ring.Focused().HandleKey(msg)
		return tea.Batch(cmd, s.previewer.followCursor()), true
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
		s.panes.setFocus(PaneEmails)
	case key.Matches(msg, k.NextPane):
		s.panes.setFocus(s.Focus() + 1)
	case key.Matches(msg, k.PrevPane):
		s.panes.setFocus(s.Focus() - 1)
	case key.Matches(msg, k.Tabs()...):
		return s.panes.switchTab(msg, s.ctx.Keys.Tabs()), true
	case reading && key.Matches(msg, k.NextMessage, k.PrevMessage):
		return s.previewer.step(msg), true
	case !reading && key.Matches(msg, k.New):
		s.ctx.Open(newCreateForm(s.ctx, s.cmds.createInbox))
	case !reading && key.Matches(msg, k.Chaos):
		return s.acts.openChaos(), true
	case key.Matches(msg, k.Import) && s.set.Remote != nil:
		return s.set.Remote.RunThere(s.ctx, "import one", s.set.Remote.Shell+" inbox import - < inbox.json"), true
	case key.Matches(msg, k.Import):
		s.ctx.Open(ui.NewPrompt(s.ctx, "Import an inbox", "Path of an exported inbox file (JSON). It holds a secret key.", "", s.cmds.importInbox))
	case key.Matches(msg, k.Resync):
		return s.loader.resync(), true
	case key.Matches(msg, k.AuthDetails):
		s.panes.toggleAuth()
	case s.Focus() == PaneInboxes && key.Matches(msg, k.Search):
		s.panes.setFocus(PaneEmails)
		s.panes.emails.startSearch()
	default:
		cmd, handled := s.panes.ring.Focused().HandleKey(msg)
		s.panes.sync()
		if !handled {
			cmd, handled = s.paneLeftKey(msg)
		}
		return tea.Batch(cmd, s.previewer.followCursor()), handled
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
		if s.panes.inboxes.selected() != nil {
			s.panes.setFocus(PaneEmails)
		}
		return nil, true
	case PaneEmails:
		switch {
		case key.Matches(msg, k.Open):
			return s.previewer.openSelected(), true
		case key.Matches(msg, k.Back):
			// Nothing to clear: the focus stays, so that the next keys do
			// not act on the inbox pane unseen.
			s.ctx.Flash(fmt.Sprintf("nothing marked or searched; %s moves to the inboxes", ui.KeyName(k.PrevPane)), ui.LevelInfo)
			return nil, true
		}
		return s.panes.reader.HandleEmailKey(msg)
	}
	if cmd, ok := s.readerLeftKey(msg); ok {
		return cmd, true
	}
	if key.Matches(msg, k.Back) {
		s.panes.setFocus(PaneEmails)
		return nil, true
	}
	return nil, false
}

// readerLeftKey handles the keys the reader leaves that act on the open
// email (mark it, delete it, read/unread, save its attachments) and on
// the selected inbox.
func (s *Screen) readerLeftKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := s.ctx.Keys
	if m, found := s.panes.reader.Email(); found {
		e, _ := s.state.find(s.panes.shown().address)
		switch {
		case key.Matches(msg, k.Mark):
			e.toggleMark(m.ID)
			return nil, true
		case key.Matches(msg, k.Delete, k.MarkUnread, k.SaveAll):
			return s.acts.bulkKey(msg, []target{{entry: e, email: m}}, e)
		}
	}
	return s.acts.inboxKey(msg)
}

// resync reloads the inbox list (importing what the keystore gained),
// reconnects the stream now if it waits to, and lists the selected inbox
// again.
func (s *loader) resync() tea.Cmd {
	cmds := []tea.Cmd{s.cmds.rescan(true)}
	if e := s.panes.inboxes.selected(); e != nil {
		e.loading = true
		cmds = append(cmds, s.cmds.loadEmails(e.info.EmailAddress), s.spinner.startSpinner())
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
		cmds = append(cmds, s.loader.listInbox(address))
	}
	return tea.Batch(cmds...)
}

// LiveInboxes are the addresses of the inboxes not expired and not gone.
func (s *Screen) LiveInboxes() []string { return s.status.LiveInboxes() }

// Totals counts the emails, the unread ones and the inboxes.
func (s *Screen) Totals() (emails, unread, inboxes int) { return s.status.Totals() }

// WindowTitle names the selected inbox and its unread count.
func (s *Screen) WindowTitle() string { return s.status.WindowTitle() }

// Banner is the line above the screen: where to send mail for the
// selected inbox ("" when not known).
func (s *Screen) Banner() string { return s.status.Banner() }

// LiveInboxes are the addresses of the inboxes not expired and not gone.
func (s *mailStatus) LiveInboxes() []string { return s.state.liveAddresses(s.ctx.Now) }

// Totals counts the emails, the unread ones and the inboxes.
func (s *mailStatus) Totals() (emails, unread, inboxes int) {
	emails, unread = s.state.totals()
	return emails, unread, len(s.state.entries)
}

// WindowTitle names the selected inbox and its unread count.
func (s *mailStatus) WindowTitle() string {
	if e := s.panes.inboxes.selected(); e != nil {
		return fmt.Sprintf("sandview · %s (%d unread)", e.info.EmailAddress, e.unread)
	}
	return "sandview"
}

// Banner is the line above the screen: where to send mail for the
// selected inbox ("" when not known).
func (s *mailStatus) Banner() string { return s.hint(s.panes.inboxes.selected()) }

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
