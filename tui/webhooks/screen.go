package webhooks

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"sandview/client/webhookrecv"
	"sandview/keys"
	"sandview/model"
	"sandview/tui/service"
	"sandview/tui/ui"
)

// Pane names a focusable pane of the webhooks screen.
type Pane int

// The focusable panes, in the order tab moves through them.
const (
	PaneList Pane = iota
	PaneDetail
	PaneDeliveries
)

// layout places the panes in a body of width x height cells for the
// focused pane: the list beside the detail over the deliveries when wide,
// the list over the detail or the deliveries when medium, the focused pane
// alone when narrow. A pane left out is hidden.
func (s *Screen) layout(width, height int) ui.Layout {
	var list, detail, deliveries ui.Rect
	mode := ui.ModeFor(width)
	focus := s.Focus()
	switch mode {
	case ui.Wide:
		listW := ui.Clamp(width*45/100, 40, 64)
		detailH := height / 2
		list = ui.Rect{X: 0, Y: 0, W: listW, H: height}
		detail = ui.Rect{X: listW, Y: 0, W: width - listW, H: detailH}
		deliveries = ui.Rect{X: listW, Y: detailH, W: width - listW, H: height - detailH}
	case ui.Medium:
		listH := ui.Clamp(height*2/5, 5, height-5)
		list = ui.Rect{X: 0, Y: 0, W: width, H: listH}
		lower := ui.Rect{X: 0, Y: listH, W: width, H: height - listH}
		if focus == PaneDeliveries {
			deliveries = lower
		} else {
			detail = lower
		}
	default:
		full := ui.Rect{X: 0, Y: 0, W: width, H: height}
		switch focus {
		case PaneList:
			list = full
		case PaneDetail:
			detail = full
		default:
			deliveries = full
		}
	}
	return ui.Layout{Mode: mode, Panes: []ui.Placed{{Pane: s.list, At: list}, {Pane: s.detail, At: detail}, {Pane: s.deliveries, At: deliveries}}}
}

// Screen is the webhooks screen: it lists the webhooks of every scope,
// details the selected one and shows the deliveries of the built-in
// receiver. Keys go to the screen's own keys, then to the focused pane;
// esc on the list (and the close key) are left to the program, which goes
// back to the mail screen.
type Screen struct {
	ctx        *ui.Context
	keys       keys.WebhookKeyMap
	cmds       commands
	state      *hookState
	inboxes    func() []string // the inboxes not expired, as scopes
	list       *hookList
	detail     *detail
	deliveries *deliveries
	ring       ui.FocusRing // list, detail, deliveries
	lay        ui.Layout
	width      int
	height     int
	// wait reads the receiver's next delivery (tests that drive the
	// channel themselves replace it).
	wait func(<-chan webhookrecv.Delivery) tea.Cmd
	// starting is set while the receiver's webhook is being created.
	starting bool
	// opened is set once the screen was shown; statsSeq numbers the
	// requests to list the stats again (stats.go).
	opened   bool
	statsSeq int
	// remote: the terminal is on another machine (an SSH user's), so no
	// receiver listens on this one for it.
	remote bool
}

// Confine keeps the screen to a remote session's profile: the built-in
// receiver, a listener on the machine the TUI runs on, is not started.
func (s *Screen) Confine() { s.remote = true }

// New returns the webhooks screen over svc; inboxes lists the addresses of
// the inboxes not expired (the scopes besides global). ctx cancels the
// service calls when the program ends.
func New(uc *ui.Context, ctx context.Context, svc service.Service, inboxes func() []string) *Screen {
	k := keys.DefaultWebhook()
	st := newHookState()
	c := commands{ctx: ctx, svc: svc}
	s := &Screen{ctx: uc, keys: k, cmds: c, state: st, inboxes: inboxes, wait: waitDelivery}
	s.list = &hookList{ctx: uc, keys: k, state: st, cmds: c, list: ui.NewList(hookRowHeight)}
	s.detail = &detail{ctx: uc, keys: k, state: st, list: s.list, view: viewport.New()}
	s.deliveries = &deliveries{ctx: uc, keys: k, state: st, list: ui.NewList(1), body: viewport.New()}
	s.ring = ui.NewFocusRing(s.list, s.detail, s.deliveries)
	s.SetSize(80, 20)
	return s
}

// Keys are the screen's key bindings.
func (s *Screen) Keys() keys.WebhookKeyMap { return s.keys }

// Focus is the focused pane.
func (s *Screen) Focus() Pane { return Pane(s.ring.At()) }

// SetSize lays the panes out in width x height cells.
func (s *Screen) SetSize(width, height int) {
	s.width, s.height = width, height
	s.lay = s.layout(width, height)
	s.lay.Resize(width, height)
}

// setFocus focuses a pane; layouts that show one pane at a time follow.
func (s *Screen) setFocus(p Pane) {
	s.ring.Focus(int(p))
	s.SetSize(s.width, s.height)
}

// Open (re)loads the screen as it is shown.
func (s *Screen) Open() tea.Cmd {
	s.opened = true
	return s.reload()
}

// reload lists the webhooks of every scope and the metrics again; the
// templates are loaded once.
func (s *Screen) reload() tea.Cmd {
	s.state.loading = true
	cmds := []tea.Cmd{s.cmds.loadWebhooks(s.inboxes()), s.cmds.loadWebhookMetrics()}
	if s.state.templates == nil {
		cmds = append(cmds, s.cmds.loadWebhookTemplates())
	}
	return tea.Batch(cmds...)
}

// CapturesInput is false: the screen has no text input outside dialogs.
func (s *Screen) CapturesInput() bool { return false }

// Paste does nothing: the screen has no text input outside dialogs.
func (s *Screen) Paste(string) {}

// HandleKey routes a key: the screen's keys, then the focused pane, then
// enter and esc, which move the focus. Esc on the list is left unhandled.
func (s *Screen) HandleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := s.keys
	switch {
	case key.Matches(msg, k.Help):
		s.ctx.Open(ui.NewHelpDialog(s.ctx, "Webhook keys", k.Groups(),
			fmt.Sprintf("%s starts a receiver on 127.0.0.1 and points a global webhook at it:", ui.KeyName(k.Receiver)),
			"it works with a local server (sandview --local)."))
	case key.Matches(msg, k.NextPane):
		s.setFocus(s.Focus() + 1)
	case key.Matches(msg, k.PrevPane):
		s.setFocus(s.Focus() - 1)
	case key.Matches(msg, k.New):
		s.openForm(nil)
	case key.Matches(msg, k.Reload):
		s.ctx.Flash("reloading webhooks…", ui.LevelInfo)
		return s.reload(), true
	case key.Matches(msg, k.Receiver):
		return s.startReceiver(), true
	case key.Matches(msg, k.Clear):
		s.deliveries.clear()
		s.ctx.Flash("deliveries cleared", ui.LevelInfo)
	case key.Matches(msg, k.Reveal):
		s.state.revealed = !s.state.revealed
		if s.state.revealed {
			s.ctx.Flash("secrets shown: mind who sees your screen", ui.LevelWarn)
		} else {
			s.ctx.Flash("secrets hidden", ui.LevelInfo)
		}
	case key.Matches(msg, k.Edit, k.Test, k.Rotate, k.Toggle, k.Delete):
		return s.act(msg), true
	default:
		if cmd, ok := s.ring.Focused().HandleKey(msg); ok {
			return cmd, true
		}
		switch {
		case key.Matches(msg, k.Open) && s.Focus() == PaneList:
			if _, ok := s.list.selected(); ok {
				s.setFocus(PaneDetail)
			}
		case key.Matches(msg, k.Back) && s.Focus() != PaneList:
			s.setFocus(PaneList)
		default:
			return nil, false
		}
	}
	return nil, true
}

// act acts on the selected webhook.
func (s *Screen) act(msg tea.KeyPressMsg) tea.Cmd {
	k := s.keys
	h, ok := s.list.selected()
	if !ok {
		s.ctx.Flash("no webhook selected", ui.LevelWarn)
		return nil
	}
	c := s.cmds
	switch {
	case key.Matches(msg, k.Edit):
		s.openForm(&h)
	case key.Matches(msg, k.Test):
		s.ctx.Flash("testing "+h.ID+"…", ui.LevelInfo)
		return c.testWebhook(h)
	case key.Matches(msg, k.Rotate):
		s.ctx.Open(ui.NewConfirm(s.ctx, fmt.Sprintf("Rotate the secret of %s (%s)? The current secret stays valid for one hour.", h.ID, h.URL),
			func() tea.Cmd { return c.rotateWebhook(h) }))
	case key.Matches(msg, k.Toggle):
		on := !h.Enabled
		verb := "disabled"
		if on {
			verb = "enabled"
		}
		return c.updateWebhook(h, model.UpdateWebhookRequest{Enabled: &on}, verb, false)
	case key.Matches(msg, k.Delete):
		s.ctx.Open(ui.NewConfirm(s.ctx, fmt.Sprintf("Delete the webhook %s (%s)? Its deliveries stop.", h.ID, h.URL),
			func() tea.Cmd { return c.deleteWebhook(h) }))
	}
	return nil
}

// openForm opens the form to create (h nil) or edit a webhook.
func (s *Screen) openForm(h *model.Webhook) {
	c := s.cmds
	f := newForm(s.ctx, h, s.state.templates, s.inboxes())
	if e := s.state.tplErr; e != "" && s.state.templates == nil {
		f.tplNote = "built-in templates shown: the list failed (" + e + ")"
	}
	f.create = c.createWebhook
	if h != nil {
		hook := *h
		f.update = func(req model.UpdateWebhookRequest) tea.Cmd { return c.updateWebhook(hook, req, "saved", true) }
	}
	s.ctx.Open(f)
}

// startReceiver starts the built-in receiver (once) and creates a webhook
// pointing at it.
func (s *Screen) startReceiver() tea.Cmd {
	if s.remote {
		s.ctx.Flash("over SSH no receiver listens on the box: run `sandview webhook listen` on your machine", ui.LevelWarn)
		return nil
	}
	if s.starting {
		s.ctx.Flash("already creating the receiver's webhook…", ui.LevelInfo)
		return nil
	}
	s.starting = true
	s.ctx.Flash("creating a webhook to the built-in receiver…", ui.LevelInfo)
	return s.cmds.startReceiver(s.state.recv, s.state.receiverSecrets())
}

// HandleMouse focuses the pane under the pointer and selects the webhook
// clicked, or scrolls the pane under the pointer.
func (s *Screen) HandleMouse(msg tea.MouseMsg) tea.Cmd {
	m := msg.Mouse()
	under, ok := s.lay.At(m.X, m.Y)
	if !ok {
		return nil
	}
	if _, wheel := msg.(tea.MouseWheelMsg); wheel {
		delta := ui.WheelDelta(m)
		switch under.Pane {
		case s.list:
			return s.list.wheel(delta)
		case s.detail:
			s.detail.wheel(delta)
		case s.deliveries:
			s.deliveries.wheel(delta)
		}
		return nil
	}
	if _, click := msg.(tea.MouseClickMsg); !click || m.Button != tea.MouseLeft {
		return nil
	}
	switch under.Pane {
	case s.list:
		if s.lay.Mode != ui.Narrow {
			s.setFocus(PaneList)
		}
		return s.list.click(m.Y - under.At.Y)
	case s.detail:
		s.setFocus(PaneDetail)
	case s.deliveries:
		s.setFocus(PaneDeliveries)
	}
	return nil
}

// View draws the visible panes.
func (s *Screen) View() string { return s.lay.View() }

// ShortHelp is the key line of the screen.
func (s *Screen) ShortHelp() []key.Binding { return s.keys.ShortHelp() }

// FullHelp lists every key of the screen.
func (s *Screen) FullHelp() [][]key.Binding { return s.keys.FullHelp() }
