package mail

import (
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/ui"
)

// An inbox's chaos in the mail screen: the dialog (chaos_form.go), the
// badge of an inbox whose chaos is active (its config is learnt from the
// dialog, and fetched when a chaos action of an inbox not yet known
// arrives), and each chaos action in the activity (status line and log).

// chaosLoadedMsg carries an inbox's chaos config as read (set: after
// the dialog applied it).
type chaosLoadedMsg struct {
	address string
	cfg     model.ChaosConfig
	set     bool
	err     error
}

// loadChaos reads an inbox's chaos config.
func (c commands) loadChaos(address string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		cfg, err := c.svc.Chaos(ctx, address)
		return chaosLoadedMsg{address: address, cfg: cfg, err: err}
	}
}

// setChaos replaces an inbox's chaos config, or switches it off (nil).
func (c commands) setChaos(address string, cfg *model.ChaosConfig) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		if cfg == nil {
			err := c.svc.DisableChaos(ctx, address)
			return chaosLoadedMsg{address: address, set: true, err: err}
		}
		got, err := c.svc.SetChaos(ctx, address, *cfg)
		return chaosLoadedMsg{address: address, cfg: got, set: true, err: err}
	}
}

// openChaos opens the chaos dialog of the inbox under the cursor.
func (a *actions) openChaos() tea.Cmd {
	e := a.current()
	if e == nil {
		a.ctx.Flash("no inbox selected: chaos acts on one inbox", ui.LevelInfo)
		return nil
	}
	address := e.info.EmailAddress
	a.ctx.Open(newChaosForm(a.ctx, address, a.cmds.setChaos))
	return a.cmds.loadChaos(address)
}

// chaosLoaded keeps an inbox's config (its badge) and hands it to its
// open dialog; after an apply it closes the dialog or shows the error.
func (a *actions) chaosLoaded(msg chaosLoadedMsg) {
	form, _ := a.ctx.Dialog().(*chaosForm)
	if form != nil && form.address != msg.address {
		form = nil
	}
	e, _ := a.state.find(msg.address)
	var disabled *client.ChaosDisabledError
	if e != nil && (msg.err == nil || errors.As(msg.err, &disabled)) {
		cfg := msg.cfg
		e.chaos, e.chaosRead = &cfg, a.ctx.Now
	}
	switch {
	case msg.set && msg.err != nil && form != nil:
		form.failed(msg.err)
	case msg.set && msg.err != nil:
		a.ctx.Flash("chaos: "+ui.ErrorText(msg.err), ui.LevelError)
	case msg.set:
		if form != nil {
			a.ctx.Close(form)
		}
		a.ctx.Flash("chaos on "+msg.address+": "+chaosState(msg.cfg, a.ctx.Now), ui.LevelSuccess)
	case form != nil:
		form.loaded(msg.cfg, msg.err)
	}
}

// chaosAction shows a chaos action in the activity: the status line and
// the log (Flash sanitizes the line: the sender and the address come
// from the network). The inbox's config is read again for its badge
// (it may have been set elsewhere, by the CLI or another user) when it
// is not known or was read more than chaosReread ago.
func (a *actions) chaosAction(msg feed.ChaosMsg) tea.Cmd {
	// The action first: a narrow status line still shows it.
	a.ctx.Flash("chaos: "+msg.Action.Text()+" · "+msg.Address, ui.LevelWarn)
	if e, _ := a.state.find(msg.Address); e != nil && (e.chaos == nil || a.ctx.Now.Sub(e.chaosRead) > chaosReread) {
		return a.cmds.loadChaos(msg.Address)
	}
	return nil
}

// chaosReread bounds how often chaos actions have an inbox's config read
// again (a sender retrying in a loop makes many).
const chaosReread = 5 * time.Second

// chaosBadge is the badge of an inbox whose chaos is active, with the
// time left when it expires; "" otherwise. The inbox pane and the
// message list's title (also when the inbox pane is hidden) show it.
func chaosBadge(e *inboxEntry, now time.Time) string {
	if e.chaos == nil || !e.chaos.ActiveAt(now) {
		return ""
	}
	if t, ok := e.chaos.ChaosExpiry(); ok {
		return "chaos " + ui.Countdown(t.Sub(now))
	}
	return "chaos"
}
