package mail

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"sandview/model"
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

// Options configure the mail screen.
type Options struct {
	// Context cancels the service calls when the program ends.
	Context context.Context
	// SMTPHint tells where to send mail, shown while an inbox is empty.
	SMTPHint string
	// Open opens a link or a file with the desktop's opener.
	Open func(ctx context.Context, target string) error
	// Hyperlinks makes the links of HTML parts OSC 8 hyperlinks (for
	// terminals that support them).
	Hyperlinks bool
}

// Screen is the mail screen: it owns the store and the panes, keeps the
// focus, lays the panes out, and routes keys to its own keys, then to the
// focused pane, then to the keys the panes leave to it (moving the focus,
// acting on the open email).
type Screen struct {
	ctx      *ui.Context
	cmds     commands
	store    *store
	inboxes  *inboxList
	emails   *emailList
	reader   *reader
	auth     *authReport
	ring     ui.FocusRing // inboxes, emails, reader
	lay      layout
	width    int
	height   int
	spinning bool
}

// New returns the mail screen over svc, holding the inboxes the service
// has, each waiting for its list.
func New(ctx *ui.Context, svc Service, opts Options) *Screen {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Open == nil {
		opts.Open = systemOpen
	}
	cmds := commands{ctx: opts.Context, svc: svc, open: opts.Open, temp: &tempDir{}, hyperlinks: opts.Hyperlinks}
	s := &Screen{ctx: ctx, cmds: cmds, store: &store{}}
	acts := &actions{ctx: ctx, cmds: s.cmds, current: func() *inboxEntry { return s.inboxes.selected() }}
	s.inboxes = newInboxList(ctx, s.store, acts)
	s.emails = newEmailList(ctx, acts, model.SanitizeLine(opts.SMTPHint))
	s.reader = newReader(ctx, s.store, s.cmds, acts)
	s.auth = newAuthReport(ctx, s.reader)
	s.ring = ui.NewFocusRing(s.inboxes, s.emails, s.reader)
	s.store.setInboxes(svc.Inboxes())
	for _, e := range s.store.entries {
		e.loading = true
	}
	s.sync()
	s.SetSize(80, 20)
	return s
}

// Init starts the loading indicator while inboxes wait for their lists.
func (s *Screen) Init() tea.Cmd {
	if s.store.loading() {
		return s.startSpinner()
	}
	return nil
}

// SetSize lays the panes out in width x height cells.
func (s *Screen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.lay = computeLayout(width, height, s.Focus(), s.auth.expanded)
	l := s.lay
	s.inboxes.SetSize(l.inboxes.SizeOr(width, height))
	s.emails.SetSize(l.emails.SizeOr(width, height))
	s.reader.SetSize(l.reader.SizeOr(width, height))
	s.auth.SetSize(l.auth.SizeOr(width, height))
}

// setFocus focuses a pane; layouts that show one list at a time follow.
func (s *Screen) setFocus(p Pane) {
	s.ring.Focus(int(p))
	s.SetSize(s.width, s.height)
}

// Focus is the focused pane.
func (s *Screen) Focus() Pane { return Pane(s.ring.At()) }

// sync points the email list at the selected inbox.
func (s *Screen) sync() { s.emails.setEntry(s.inboxes.selected()) }

// CapturesInput reports whether the filter input has the keyboard.
func (s *Screen) CapturesInput() bool { return s.emails.CapturesInput() }

// Paste types pasted text into the filter.
func (s *Screen) Paste(text string) { s.emails.Paste(text) }

// HandleKey routes a key: the filter input while it is typed; then the
// screen's keys; then the focused pane; then what the pane left.
func (s *Screen) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if s.emails.CapturesInput() {
		return s.emails.HandleKey(msg)
	}
	k := s.ctx.Keys
	switch {
	case key.Matches(msg, k.Help):
		s.ctx.Open(ui.NewHelpDialog(s.ctx, "Keys", k,
			fmt.Sprintf("%s marks unread locally only: the service has no unread flag.", ui.KeyName(k.MarkUnread))))
	case key.Matches(msg, k.NextPane):
		s.setFocus(s.Focus() + 1)
	case key.Matches(msg, k.PrevPane):
		s.setFocus(s.Focus() - 1)
	case key.Matches(msg, k.Tabs()...):
		return s.switchTab(msg), true
	case key.Matches(msg, k.New):
		s.ctx.Open(newCreateForm(s.ctx, s.cmds.createInbox))
	case key.Matches(msg, k.Import):
		s.ctx.Open(ui.NewPrompt(s.ctx, "Import an inbox", "Path of an exported inbox file (JSON). It holds a secret key.", "", s.cmds.importInbox))
	case key.Matches(msg, k.Resync):
		return s.resync(), true
	case key.Matches(msg, k.AuthDetails):
		s.toggleAuth()
	default:
		cmd, handled := s.ring.Focused().HandleKey(msg)
		s.sync()
		if handled {
			return cmd, true
		}
		return s.paneLeftKey(msg)
	}
	return nil, true
}

// paneLeftKey handles the keys the focused pane left: enter and esc move
// the focus (enter on an email opens it), and the email list passes the
// keys that act on the open email to the reader.
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
			s.setFocus(PaneInboxes)
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
	return s.reader.loadRaw()
}

// openSelected opens the email under the list's cursor: its content is
// fetched and it is marked read.
func (s *Screen) openSelected() tea.Cmd {
	e := s.emails.entry
	sel, ok := s.emails.selected()
	if !ok || e == nil {
		return nil
	}
	address := e.info.EmailAddress
	s.reader.open(address, sel.ID)
	if s.lay.mode == ui.Narrow {
		s.setFocus(PaneReader)
	}
	delete(e.fresh, sel.ID)
	if sel.Problem != "" {
		return nil
	}
	var cmds []tea.Cmd
	if !sel.HasContent {
		cmds = append(cmds, s.cmds.loadEmail(address, sel.ID))
	}
	if !sel.IsRead {
		e.setRead(sel.ID, true)
		cmds = append(cmds, s.cmds.markRead(address, sel.ID))
	}
	cmds = append(cmds, s.reader.loadRaw())
	return tea.Batch(cmds...)
}

// resync reloads the inbox list and the selected inbox.
func (s *Screen) resync() tea.Cmd {
	cmds := []tea.Cmd{s.cmds.loadInboxes()}
	if e := s.inboxes.selected(); e != nil {
		e.loading = true
		cmds = append(cmds, s.cmds.loadEmails(e.info.EmailAddress), s.startSpinner())
		s.ctx.Flash("resyncing "+e.info.EmailAddress+"…", ui.LevelInfo)
	}
	return tea.Batch(cmds...)
}

// ReloadAll lists every inbox not expired again (after the connection
// recovered: lists that failed to load or missed a deletion catch up).
func (s *Screen) ReloadAll() tea.Cmd {
	var cmds []tea.Cmd
	for _, address := range s.LiveInboxes() {
		cmds = append(cmds, s.cmds.loadEmails(address))
	}
	return tea.Batch(cmds...)
}

// LiveInboxes are the addresses of the inboxes not expired.
func (s *Screen) LiveInboxes() []string { return s.store.liveAddresses(s.ctx.Now) }

// Totals counts the emails, the unread ones and the inboxes.
func (s *Screen) Totals() (emails, unread, inboxes int) {
	emails, unread = s.store.totals()
	return emails, unread, len(s.store.entries)
}

// WindowTitle names the selected inbox and its unread count.
func (s *Screen) WindowTitle() string {
	if e := s.inboxes.selected(); e != nil {
		return fmt.Sprintf("sandview · %s (%d unread)", e.info.EmailAddress, e.unread)
	}
	return "sandview"
}

// startSpinner starts the loading indicator unless it runs.
func (s *Screen) startSpinner() tea.Cmd {
	if s.spinning {
		return nil
	}
	s.spinning = true
	return s.nextSpin()
}

func (s *Screen) nextSpin() tea.Cmd {
	sp := s.emails.spinner
	id := sp.ID()
	return s.ctx.Tick(sp.Spinner.FPS, func(t time.Time) tea.Msg { return spinner.TickMsg{ID: id, Time: t} })
}

// HandleMouse focuses the pane under the pointer and selects the row
// clicked (clicking the selected email opens it), or scrolls the pane
// under the pointer.
func (s *Screen) HandleMouse(msg tea.MouseMsg) tea.Cmd {
	m := msg.Mouse()
	l := s.lay
	defer s.sync()
	if _, wheel := msg.(tea.MouseWheelMsg); wheel {
		delta := ui.WheelDelta(m)
		switch {
		case l.inboxes.Contains(m.X, m.Y):
			s.inboxes.wheel(delta)
		case l.emails.Contains(m.X, m.Y):
			s.emails.wheel(delta)
		case l.reader.Contains(m.X, m.Y):
			s.reader.wheel(delta)
		case l.auth.Contains(m.X, m.Y):
			s.auth.wheel(delta)
		}
		return nil
	}
	if _, click := msg.(tea.MouseClickMsg); !click || m.Button != tea.MouseLeft {
		return nil
	}
	switch {
	case l.inboxes.Contains(m.X, m.Y):
		s.setFocus(PaneInboxes)
		s.inboxes.click(m.Y - l.inboxes.Y)
	case l.emails.Contains(m.X, m.Y):
		s.setFocus(PaneEmails)
		if i := s.emails.rowAt(m.Y - l.emails.Y); i >= 0 && s.emails.clickedRow(i) {
			return s.openSelected()
		}
	case l.reader.Contains(m.X, m.Y):
		s.setFocus(PaneReader)
	}
	return nil
}

// View draws the visible panes.
func (s *Screen) View() string {
	l := s.lay
	switch l.mode {
	case ui.Wide:
		right := s.reader.View()
		if l.auth.H > 0 {
			right = ui.Stack(right, s.auth.View())
		}
		return ui.Beside(s.inboxes.View(), s.emails.View(), right)
	case ui.Medium:
		list := s.emails.View()
		if l.inboxes.W > 0 {
			list = s.inboxes.View()
		}
		return ui.Stack(list, s.reader.View())
	}
	return s.ring.Focused().View()
}

// ShortHelp is the key line: the filter's keys while it is typed.
func (s *Screen) ShortHelp() []key.Binding {
	if s.emails.CapturesInput() {
		return s.emails.ShortHelp()
	}
	return s.ctx.Keys.ShortHelp()
}

// FullHelp lists every key of the screen.
func (s *Screen) FullHelp() [][]key.Binding { return s.ctx.Keys.FullHelp() }
