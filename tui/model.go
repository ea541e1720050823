package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"sandview/keys"
	"sandview/model"
	"sandview/theme"
)

// pane identifies a focusable pane.
type pane int

const (
	paneInboxes pane = iota
	paneMessages
	paneMessage
	paneCount
)

// options are the internal settings of a model; Config fills them.
type options struct {
	svc          service
	serverLabel  string
	smtpHint     string
	dark         *bool
	noColor      bool
	now          func() time.Time
	open         func(ctx context.Context, target string) error
	pollInterval time.Duration
	startup      func(ctx context.Context) error
	ctx          context.Context
	// tick schedules timer messages (tea.Tick; tests switch timers off).
	tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
}

// Model is the root model: it owns the shared context and the store and
// delegates to one sub-model per pane.
type Model struct {
	sh   *shared
	cmds cmds
	opts options

	store    *store
	inboxes  *inboxList
	messages *messageList
	message  *messagePane
	auth     *authPane
	hooks    *webhookView
	status   *statusBar
	help     help.Model

	focus   pane
	overlay overlay
	width   int
	height  int
	lay     layout
	feed    <-chan tea.Msg
	spinOn  bool
}

// newModel builds a model from options.
func newModel(o options) Model {
	if o.now == nil {
		o.now = time.Now
	}
	if o.open == nil {
		o.open = systemOpen
	}
	if o.ctx == nil {
		o.ctx = context.Background()
	}
	if o.tick == nil {
		o.tick = tea.Tick
	}
	if o.pollInterval <= 0 {
		o.pollInterval = defaultPollInterval
	}
	dark := true
	if o.dark != nil {
		dark = *o.dark
	}
	sh := &shared{theme: theme.New(dark, o.noColor), keys: keys.Default(), edit: keys.DefaultEdit(), clock: o.now}
	sh.now = o.now()
	st := &store{}
	var svc service = disconnected{}
	if o.svc != nil {
		svc = o.svc
	}
	m := Model{
		sh:       sh,
		cmds:     cmds{ctx: o.ctx, svc: svc, open: o.open},
		opts:     o,
		store:    st,
		inboxes:  newInboxList(sh, st),
		messages: newMessageList(sh, model.SanitizeLine(o.smtpHint)),
		message:  newMessagePane(sh),
		auth:     newAuthPane(sh),
		hooks:    newWebhookView(sh),
		status:   newStatusBar(sh, model.SanitizeLine(o.serverLabel)),
		help:     help.New(),
		width:    80,
		height:   24,
	}
	m.help.Styles = sh.theme.Help()
	if o.svc != nil {
		st.setInboxes(o.svc.Inboxes())
		for _, e := range st.entries {
			e.loading = true
		}
	}
	m.syncSelection()
	m.resize(m.width, m.height)
	return m
}

// tick is the 1 s clock of countdowns and transient messages.
func (m *Model) tick() tea.Cmd {
	return m.opts.tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// spinMsg animates the loading indicator.
type spinMsg struct{}

func (m *Model) spin() tea.Cmd {
	return m.opts.tick(120*time.Millisecond, func(time.Time) tea.Msg { return spinMsg{} })
}

// feedStartedMsg hands the feed's channel to the model.
type feedStartedMsg struct{ ch <-chan tea.Msg }

// Init starts the clock, the live feed and dark/light detection.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.tick()}
	if m.opts.dark == nil {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if m.opts.svc != nil {
		ctx, svc, interval := m.opts.ctx, m.opts.svc, m.opts.pollInterval
		cmds = append(cmds, func() tea.Msg { return feedStartedMsg{ch: startFeed(ctx, svc, interval)} })
	}
	if startup, ctx := m.opts.startup, m.opts.ctx; startup != nil {
		cmds = append(cmds, func() tea.Msg {
			if err := startup(ctx); err != nil {
				return statusMsg{text: err.Error(), level: levelError}
			}
			return nil
		})
	}
	return tea.Batch(cmds...)
}

// current returns the selected inbox entry.
func (m *Model) current() *inboxEntry { return m.inboxes.selected() }

// openEmail returns the email shown in the message pane.
func (m *Model) openEmail() (model.Email, bool) {
	if m.message.id == "" {
		return model.Email{}, false
	}
	e, _ := m.store.find(m.message.address)
	if e == nil {
		return model.Email{}, false
	}
	return e.email(m.message.id)
}

// syncSelection points the message list at the selected inbox.
func (m *Model) syncSelection() {
	m.inboxes.clamp()
	m.messages.setEntry(m.current())
}

func (m *Model) anyLoading() bool {
	for _, e := range m.store.entries {
		if e.loading {
			return true
		}
	}
	return false
}

// resize lays the panes out for a new terminal size.
func (m *Model) resize(width, height int) {
	m.width, m.height = max(width, 20), max(height, 8)
	top := 0
	if m.messages.smtpHint != "" {
		top = 1
	}
	m.lay = computeLayout(m.width, m.height, top, m.focus)
	l := m.lay
	// Hidden panes keep a usable size so scrolling math stays sane.
	size := func(r rect) (int, int) {
		if r.w == 0 {
			return m.width, l.bodyHeight
		}
		return r.w, r.h
	}
	m.inboxes.SetSize(size(l.inboxes))
	m.messages.SetSize(size(l.messages))
	m.message.SetSize(size(l.message))
	m.auth.SetSize(size(l.auth))
	m.resizeWebhooks()
	m.status.SetSize(m.width)
	m.help.SetWidth(m.width)
}

// setFocus focuses a pane; layouts that show one list at a time follow.
func (m *Model) setFocus(p pane) {
	m.focus = (p + paneCount) % paneCount
	m.resize(m.width, m.height)
}

// flash shows a transient message in the status bar.
func (m *Model) flash(text string, level statusLevel) {
	m.status.flash(model.SanitizeLine(text), level)
}

// Update handles every message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case tea.BackgroundColorMsg:
		if m.opts.dark == nil {
			m.sh.theme = theme.New(msg.IsDark(), m.opts.noColor)
			m.help.Styles = m.sh.theme.Help()
		}
	case tickMsg:
		m.sh.now = m.sh.clock()
		m.status.expire()
		return m.tick()
	case spinMsg:
		m.messages.spinner++
		if m.anyLoading() {
			return m.spin()
		}
		m.spinOn = false
	case feedStartedMsg:
		m.feed = msg.ch
		var spinner tea.Cmd
		if m.anyLoading() {
			spinner = m.startSpinner()
		}
		return tea.Batch(waitFeed(m.feed), spinner)
	case feedMsg:
		return tea.Batch(m.update(msg.msg), waitFeed(m.feed))
	case tea.KeyPressMsg:
		return m.routeKey(msg)
	case tea.PasteMsg:
		m.handlePaste(msg.Content)
	case tea.MouseClickMsg:
		if m.hooks.shown {
			return m.webhookClick(msg.Mouse())
		}
		return m.handleClick(msg.Mouse())
	case tea.MouseWheelMsg:
		if m.hooks.shown {
			m.webhookWheel(msg.Mouse())
			return nil
		}
		m.handleWheel(msg.Mouse())
	default:
		if cmd, ok := m.webhookResult(msg); ok {
			return cmd
		}
		return m.handleResult(msg)
	}
	return nil
}

// View renders the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "sandview"
	if e := m.current(); e != nil {
		v.WindowTitle = fmt.Sprintf("sandview · %s (%d unread)", e.info.EmailAddress, e.unread)
	}
	return v
}

// render draws banner, panes, status bar, key line and any dialog.
func (m *Model) render() string {
	st := m.sh.styles()
	l := m.lay
	var rows []string
	if m.messages.smtpHint != "" {
		rows = append(rows, st.Banner.Render(fit(" ✉ "+m.messages.smtpHint, m.width)))
	}
	rows = append(rows, m.renderBody())
	emails, unread := m.store.totals()
	rows = append(rows, m.status.View(emails, unread, len(m.store.entries)))
	rows = append(rows, fit(m.help.ShortHelpView(m.shortHelp()), m.width))
	screen := strings.Join(rows, "\n")
	if m.overlay == nil {
		return screen
	}
	box := m.overlay.view(m.sh, m.width-4)
	bw, bh := lipgloss.Width(box), lipgloss.Height(box)
	x, y := max((m.width-bw)/2, 0), max(l.top+(l.bodyHeight-bh)/2, 0)
	return overlayOn(screen, box, x, y)
}

// overlayOn draws box over screen with its top-left corner at x, y.
func overlayOn(screen, box string, x, y int) string {
	lines := strings.Split(screen, "\n")
	for i, b := range strings.Split(box, "\n") {
		row := y + i
		if row >= len(lines) {
			break
		}
		line := lines[row]
		left := ansi.Truncate(line, x, "")
		if pad := x - ansi.StringWidth(left); pad > 0 {
			left += strings.Repeat(" ", pad)
		}
		right := ansi.TruncateLeft(line, x+ansi.StringWidth(b), "")
		lines[row] = left + ansi.ResetStyle + b + ansi.ResetStyle + right
	}
	return strings.Join(lines, "\n")
}

// renderBody draws the visible panes.
func (m *Model) renderBody() string {
	if m.hooks.shown {
		return m.hooks.View()
	}
	l := m.lay
	open, found := m.openEmail()
	switch l.mode {
	case layoutWide:
		right := m.message.View(open, found, m.focus == paneMessage)
		if l.auth.h > 0 {
			right = lipgloss.JoinVertical(lipgloss.Left, right, m.auth.View(open, false))
		}
		return lipgloss.JoinHorizontal(lipgloss.Top,
			m.inboxes.View(m.focus == paneInboxes), m.messages.View(m.focus == paneMessages), right)
	case layoutMedium:
		list := m.messages.View(m.focus == paneMessages)
		if l.inboxes.w > 0 {
			list = m.inboxes.View(true)
		}
		return lipgloss.JoinVertical(lipgloss.Left, list, m.message.View(open, found, m.focus == paneMessage))
	}
	switch m.focus {
	case paneInboxes:
		return m.inboxes.View(true)
	case paneMessages:
		return m.messages.View(true)
	}
	return m.message.View(open, found, true)
}

// shortHelp is the key line: the dialog's keys while one is open.
func (m *Model) shortHelp() []key.Binding {
	if m.overlay != nil {
		return m.overlay.helpKeys().ShortHelp()
	}
	if m.messages.filtering {
		return keys.DefaultPrompt().ShortHelp()
	}
	if m.hooks.shown {
		return m.hooks.keys.ShortHelp()
	}
	return m.sh.keys.ShortHelp()
}
