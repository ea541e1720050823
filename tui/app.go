package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"sandview/model/termtext"
	"sandview/theme"
	"sandview/tui/feed"
	"sandview/tui/mail"
	"sandview/tui/service"
	"sandview/tui/termimage"
	"sandview/tui/ui"
	"sandview/tui/webhooks"
)

// App is the root model. It owns the shared context and the two screens,
// and only routes: keys to the open dialog, else to the shown screen;
// results and feed events to the screen they belong to, shown or not.
// Around the screen it draws the SMTP banner, the status bar and the key
// line, and it keeps the connection state.
type App struct {
	ctx       *ui.Context
	cfg       Config       // its svc is the service (nil: none, nothing is watched)
	set       *ui.Settings // cfg.Settings, never nil
	runCtx    context.Context
	mail      *mail.Screen
	hooks     *webhooks.Screen
	showHooks bool // the webhooks screen is shown instead of the mail one
	server    string
	conn      connState
	troubled  bool // the connection failed since mail last flowed
	// keyRefused says why the server refused the API key ("" while it
	// has not): the program then shows what to do instead of the screens.
	keyRefused string
	feed       *feed.Queue
	width      int
	height     int
	// pics draws the reader's Rendered picture.
	pics *pictures
	// bannered says whether the layout left a line for the banner, which
	// comes and goes with the selected inbox.
	bannered bool
}

// tickMsg drives countdowns and expires status messages; keystoreTickMsg
// looks for inboxes other programs saved.
type (
	tickMsg         time.Time
	keystoreTickMsg struct{}
)

// keystoreEvery is how often the keystore is looked at for inboxes the
// CLI saved (one directory read when nothing changed).
const keystoreEvery = 2 * time.Second

// feedStartedMsg hands the started feed (or why it failed) to the program.
type feedStartedMsg struct {
	queue *feed.Queue
	err   error
}

// newApp builds the root model of cfg; ctx ends with the program.
func newApp(ctx context.Context, cfg Config) App {
	if cfg.Settings == nil {
		cfg.Settings = &ui.Settings{}
	}
	set := cfg.Settings
	if cfg.svc == nil && cfg.Client != nil {
		cfg.svc = service.FromClient(cfg.Client, cfg.Keystore)
	}
	clock := set.Now
	if clock == nil {
		clock = time.Now
	}
	dark := true
	if set.DarkTheme != nil {
		dark = *set.DarkTheme
	}
	uctx := ui.NewContext(theme.New(dark, set.NoColor), clock)
	if cfg.tick != nil {
		uctx.Tick = cfg.tick
	}
	svc := cfg.svc
	if svc == nil {
		svc = service.FromClient(nil, nil) // every call fails with client.ErrNoService
	}
	a := App{
		ctx:    uctx,
		cfg:    cfg,
		set:    set,
		runCtx: ctx,
		server: termtext.SanitizeLine(set.ServerLabel),
		pics:   &pictures{hints: set.Terminal, det: termimage.NewDetector(set.Terminal)},
	}
	if cfg.svc != nil {
		a.conn = connState{kind: connConnecting}
	}
	a.mail = mail.New(uctx, ctx, svc, set)
	a.hooks = webhooks.New(uctx, ctx, svc, a.mail.LiveInboxes)
	if set.Remote != nil {
		a.hooks.Confine()
	}
	a.resize(80, 24)
	return a
}

// Init starts the clock, the key check, the live feed, the keystore
// watch, the loading indicator and dark/light detection.
func (a App) Init() tea.Cmd {
	cmds := []tea.Cmd{a.tick(), a.mail.Init(), a.checkKey(), a.watchKeystore(), waitNotice(a.runCtx, a.cfg.Notices), a.pics.askTerminal()}
	if a.set.DarkTheme == nil {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if svc, ctx := a.cfg.svc, a.runCtx; svc != nil {
		cmds = append(cmds, func() tea.Msg {
			q, err := feed.Start(ctx, svc)
			return feedStartedMsg{queue: q, err: err}
		})
	}
	if startup, ctx := a.cfg.Startup, a.runCtx; startup != nil {
		cmds = append(cmds, func() tea.Msg {
			if err := startup(ctx); err != nil {
				return ui.StatusMsg{Text: err.Error(), Level: ui.LevelError}
			}
			return nil
		})
	}
	return tea.Batch(cmds...)
}

// tick is the 1 s clock of countdowns and status messages.
func (a *App) tick() tea.Cmd {
	return a.ctx.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// screen is the screen shown.
func (a *App) screen() ui.Screen {
	if a.showHooks {
		return a.hooks
	}
	return a.mail
}

// banner is the line above the screen: where to send mail for the
// selected inbox.
func (a *App) banner() string { return a.mail.Banner() }

// bodyTop is the first line of the screen, under the banner.
func (a *App) bodyTop() int {
	if a.banner() != "" {
		return 1
	}
	return 0
}

// resize lays the screens out for a new terminal size: the banner above,
// the status bar and the key line below.
func (a *App) resize(width, height int) {
	a.width, a.height = max(width, 20), max(height, 8)
	a.bannered = a.banner() != ""
	bodyH := max(a.height-a.bodyTop()-2, 3)
	a.mail.SetSize(a.width, bodyH)
	a.hooks.SetSize(a.width, bodyH)
}

// Update handles every message.
func (a App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := a.update(msg)
	if (a.banner() != "") != a.bannered {
		a.resize(a.width, a.height)
	}
	return a, tea.Batch(cmd, a.updatePicture())
}

func (a *App) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.resize(msg.Width, msg.Height)
		return a.mail.Resized()
	case tea.BackgroundColorMsg:
		if a.set.DarkTheme == nil {
			a.ctx.Theme = theme.New(msg.IsDark(), a.set.NoColor)
		}
	case paintMsg:
		return a.pics.paint(msg)
	case tickMsg:
		a.ctx.Advance()
		return a.tick()
	case keystoreTickMsg:
		return tea.Batch(a.mail.WatchKeystore(), a.watchKeystore())
	case keyCheckedMsg:
		return a.keyChecked(msg)
	case noticeMsg:
		return a.showNotice(msg)
	case tea.KeyPressMsg:
		return a.handleKey(msg)
	case tea.PasteMsg:
		if !a.ctx.PasteToDialog(msg.Content) {
			a.screen().Paste(msg.Content)
		}
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		return a.handleMouse(msg.(tea.MouseMsg))
	case feedStartedMsg:
		if msg.err != nil {
			a.conn = connState{kind: connOffline, err: ui.ErrorText(msg.err)}
			return nil
		}
		a.feed = msg.queue
		return a.feed.Next()
	case feed.EventMsg:
		return tea.Batch(a.update(msg.Msg), a.feed.Next())
	case feed.StateMsg:
		a.refusedBy(msg.State.Err)
		return a.connChanged(connStateOf(msg.State))
	case feed.SyncErrorMsg:
		a.refusedBy(msg.Err)
		a.ctx.Flash(ui.ErrorText(msg.Err), ui.LevelWarn)
	case feed.NewEmailMsg, feed.NewEmailsMsg:
		cmd, _ := a.mail.Update(msg)
		return tea.Batch(cmd, a.hooks.MailArrived())
	default:
		if a.pics.answer(&a.ctx.Graphics, msg) {
			return nil
		}
		if a.ctx.Update(msg) {
			return nil
		}
		if cmd, ok := a.mail.Update(msg); ok {
			return cmd
		}
		cmd, _ := a.hooks.Update(msg)
		return cmd
	}
	return nil
}

// handleKey routes a key: force-quit from anywhere; then the open dialog;
// then the key screen while the key is refused; then a screen whose text
// input has the keyboard; then the global keys (the log, switching
// screens); then the shown screen. Quit and the keys the webhooks screen
// leaves (esc on its list) act when the screen does not take them: q
// closes the reader before it quits.
func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.ctx.Keys
	if key.Matches(msg, k.ForceQuit) {
		return tea.Quit
	}
	if cmd, ok := a.ctx.HandleDialogKey(msg); ok {
		return cmd
	}
	if a.keyRefused != "" {
		return a.keyScreenKey(msg)
	}
	scr := a.screen()
	if scr.CapturesInput() {
		cmd, _ := scr.HandleKey(msg)
		return cmd
	}
	hookKeys := a.hooks.Keys()
	switch {
	case key.Matches(msg, k.Log):
		a.ctx.Open(ui.NewLogDialog(a.ctx))
		return nil
	case !a.showHooks && key.Matches(msg, k.Webhooks):
		a.showHooks = true
		a.mail.Leave()
		return a.hooks.Open()
	case a.showHooks && key.Matches(msg, hookKeys.Close):
		a.showHooks = false
		return a.mail.Return()
	}
	cmd, handled := scr.HandleKey(msg)
	switch {
	case handled:
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case a.showHooks && key.Matches(msg, hookKeys.Back):
		a.showHooks = false
		return tea.Batch(cmd, a.mail.Return())
	}
	return cmd
}

// handleMouse gives a click or a wheel turn to the shown screen, at
// coordinates relative to it; nothing while a dialog is open.
func (a *App) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if a.ctx.Dialog() != nil {
		return nil
	}
	top := a.bodyTop()
	switch m := msg.(type) {
	case tea.MouseClickMsg:
		m.Y -= top
		return a.screen().HandleMouse(m)
	case tea.MouseWheelMsg:
		m.Y -= top
		return a.screen().HandleMouse(m)
	}
	return nil
}

// View renders the screen.
func (a App) View() tea.View {
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = a.mail.WindowTitle()
	return v
}

// render draws the banner, the screen, the status bar, the key line and
// the open dialog.
func (a *App) render() string {
	st := a.ctx.Styles()
	var rows []string
	if banner := a.banner(); banner != "" {
		rows = append(rows, st.Banner.Render(ui.Fit(" ✉ "+banner, a.width)))
	}
	if a.keyRefused != "" {
		rows = append(rows, a.keyScreen(max(a.height-a.bodyTop()-2, 3)))
	} else {
		rows = append(rows, a.screen().View())
	}
	emails, unread, inboxes := a.mail.Totals()
	rows = append(rows, statusBar(a.ctx, a.server, a.conn, totals{emails: emails, unread: unread, inboxes: inboxes}, a.width))
	rows = append(rows, ui.KeyLine(a.ctx, a.keyLine(), a.width))
	screen := strings.Join(rows, "\n")
	d := a.ctx.Dialog()
	if d == nil {
		return screen
	}
	bodyH := max(a.height-a.bodyTop()-2, 3)
	box := d.View(a.width-4, bodyH)
	bw, bh := ui.BlockWidth(box), lipgloss.Height(box)
	x, y := max((a.width-bw)/2, 0), max(a.bodyTop()+(bodyH-bh)/2, 0)
	return ui.Place(screen, box, x, y)
}

// keyLine is the short help under the status bar: the dialog's keys while
// one is open, else the key screen's or the shown screen's.
func (a *App) keyLine() []key.Binding {
	if d := a.ctx.Dialog(); d != nil {
		return d.ShortHelp()
	}
	if a.keyRefused != "" {
		k := a.ctx.Keys
		return []key.Binding{k.Resync, k.Log, k.Quit}
	}
	return a.screen().ShortHelp()
}

// watchKeystore schedules the next look at the keystore.
func (a *App) watchKeystore() tea.Cmd {
	if a.cfg.svc == nil {
		return nil
	}
	return a.ctx.Tick(keystoreEvery, func(time.Time) tea.Msg { return keystoreTickMsg{} })
}
