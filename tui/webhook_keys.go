package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/model"
)

// routeKey sends a key to the webhooks view while it is shown and no
// dialog or filter has the keyboard; on the mail view, the webhooks key
// opens it. Everything else goes to handleKey.
func (m *Model) routeKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.overlay != nil || m.messages.filtering || key.Matches(msg, m.sh.keys.ForceQuit) {
		return m.handleKey(msg)
	}
	if m.hooks.shown {
		return m.webhookKey(msg)
	}
	if key.Matches(msg, m.sh.keys.Webhooks) {
		return m.openWebhooks()
	}
	return m.handleKey(msg)
}

// openWebhooks shows the webhooks view and (re)loads it.
func (m *Model) openWebhooks() tea.Cmd {
	m.hooks.shown = true
	m.resize(m.width, m.height)
	return m.reloadWebhooks()
}

// closeWebhooks goes back to the mail view.
func (m *Model) closeWebhooks() {
	m.hooks.shown = false
	m.resize(m.width, m.height)
}

// resizeWebhooks lays the webhooks view (and an open webhook form) out in
// the body area.
func (m *Model) resizeWebhooks() {
	m.hooks.SetSize(m.width, m.lay.bodyHeight, m.lay.top)
	if f, ok := m.overlay.(*webhookForm); ok {
		f.maxLines = m.lay.bodyHeight
	}
}

// liveInboxes are the addresses of the inboxes not expired.
func (m *Model) liveInboxes() []string {
	var out []string
	for _, e := range m.store.entries {
		if !e.info.IsExpired(m.sh.now) {
			out = append(out, e.info.EmailAddress)
		}
	}
	return out
}

// reloadWebhooks lists the webhooks of every scope and the metrics again;
// the templates are loaded once.
func (m *Model) reloadWebhooks() tea.Cmd {
	d := m.hooks.data
	d.loading = true
	cmds := []tea.Cmd{m.cmds.loadWebhooks(m.liveInboxes()), m.cmds.loadWebhookMetrics()}
	if d.templates == nil {
		cmds = append(cmds, m.cmds.loadWebhookTemplates())
	}
	return tea.Batch(cmds...)
}

// loadSelectedHook fetches the selected webhook's full record (secret,
// stats).
func (m *Model) loadSelectedHook() tea.Cmd {
	h, ok := m.hooks.selected()
	if !ok {
		return nil
	}
	return m.cmds.loadWebhook(h)
}

func (m *Model) setHookFocus(p hookPane) {
	m.hooks.focus = (p + hookPaneCount) % hookPaneCount
	m.resizeWebhooks()
}

// webhookKey handles the keys of the webhooks view.
func (m *Model) webhookKey(msg tea.KeyPressMsg) tea.Cmd {
	v := m.hooks
	k := v.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.overlay = &helpScreen{title: "Webhook keys", keys: k, help: m.help, notes: []string{
			"l starts a receiver on 127.0.0.1 and points a global webhook at it:",
			"it works with a local server (sandview --local).",
		}}
	case key.Matches(msg, k.Close):
		m.closeWebhooks()
	case key.Matches(msg, k.Back):
		if v.focus != hookList {
			m.setHookFocus(hookList)
		} else {
			m.closeWebhooks()
		}
	case key.Matches(msg, k.NextPane):
		m.setHookFocus(v.focus + 1)
	case key.Matches(msg, k.PrevPane):
		m.setHookFocus(v.focus - 1)
	case key.Matches(msg, k.New):
		m.openWebhookForm(nil)
	case key.Matches(msg, k.Reload):
		m.flash("reloading webhooks…", levelInfo)
		return m.reloadWebhooks()
	case key.Matches(msg, k.Receiver):
		return m.startReceiver()
	case key.Matches(msg, k.Clear):
		v.data.deliveries = nil
		v.deliveries.cursor, v.deliveries.offset, v.deliveries.scroll = 0, 0, 0
		m.flash("deliveries cleared", levelInfo)
	case key.Matches(msg, k.Reveal):
		v.data.revealed = !v.data.revealed
		if v.data.revealed {
			m.flash("secrets shown: mind who sees your screen", levelWarn)
		} else {
			m.flash("secrets hidden", levelInfo)
		}
	case key.Matches(msg, k.Edit, k.Test, k.Rotate, k.Toggle, k.Delete):
		return m.webhookAction(msg)
	default:
		return m.webhookNav(msg)
	}
	return nil
}

// webhookAction acts on the selected webhook.
func (m *Model) webhookAction(msg tea.KeyPressMsg) tea.Cmd {
	k := m.hooks.keys
	h, ok := m.hooks.selected()
	if !ok {
		m.flash("no webhook selected", levelWarn)
		return nil
	}
	c := m.cmds
	switch {
	case key.Matches(msg, k.Edit):
		m.openWebhookForm(&h)
	case key.Matches(msg, k.Test):
		m.flash("testing "+h.ID+"…", levelInfo)
		return c.testWebhook(h)
	case key.Matches(msg, k.Rotate):
		m.overlay = newConfirm(fmt.Sprintf("Rotate the secret of %s (%s)? The current secret stays valid for one hour.", h.ID, h.URL),
			func() tea.Cmd { return c.rotateWebhook(h) })
	case key.Matches(msg, k.Toggle):
		on := !h.Enabled
		verb := "disabled"
		if on {
			verb = "enabled"
		}
		return c.updateWebhook(h, model.UpdateWebhookRequest{Enabled: &on}, verb, false)
	case key.Matches(msg, k.Delete):
		m.overlay = newConfirm(fmt.Sprintf("Delete the webhook %s (%s)? Its deliveries stop.", h.ID, h.URL),
			func() tea.Cmd { return c.deleteWebhook(h) })
	}
	return nil
}

// openWebhookForm opens the form to create (h nil) or edit a webhook.
func (m *Model) openWebhookForm(h *model.Webhook) {
	c := m.cmds
	f := newWebhookForm(h, m.hooks.data.templates, m.liveInboxes())
	f.maxLines = m.lay.bodyHeight
	if e := m.hooks.data.tplErr; e != "" && m.hooks.data.templates == nil {
		f.tplNote = "built-in templates shown: the list failed (" + e + ")"
	}
	f.create = c.createWebhook
	if h != nil {
		hook := *h
		f.update = func(req model.UpdateWebhookRequest) tea.Cmd { return c.updateWebhook(hook, req, "saved", true) }
	}
	m.overlay = f
}

// startReceiver starts the built-in receiver (once) and creates a webhook
// pointing at it.
func (m *Model) startReceiver() tea.Cmd {
	v := m.hooks
	if v.starting {
		m.flash("already creating the receiver's webhook…", levelInfo)
		return nil
	}
	v.starting = true
	m.flash("creating a webhook to the built-in receiver…", levelInfo)
	return m.cmds.startReceiver(v.data.recv, v.data.receiverSecrets())
}

// webhookNav moves within the focused pane.
func (m *Model) webhookNav(msg tea.KeyPressMsg) tea.Cmd {
	v := m.hooks
	k := v.keys
	switch v.focus {
	case hookList:
		l := v.list
		moved := false
		switch {
		case key.Matches(msg, k.Up):
			moved = l.move(-1)
		case key.Matches(msg, k.Down):
			moved = l.move(1)
		case key.Matches(msg, k.PageUp):
			moved = l.move(-l.page())
		case key.Matches(msg, k.PageDown):
			moved = l.move(l.page())
		case key.Matches(msg, k.Top):
			moved = l.move(-len(v.data.hooks))
		case key.Matches(msg, k.Bottom):
			moved = l.move(len(v.data.hooks))
		case key.Matches(msg, k.Open):
			if _, ok := v.selected(); ok {
				m.setHookFocus(hookDetail)
			}
		}
		if moved {
			v.detail.offset = 0
			return m.loadSelectedHook()
		}
	case hookDetail:
		h, found := v.selected()
		p := v.detail
		switch {
		case key.Matches(msg, k.Up):
			p.scroll(h, found, -1)
		case key.Matches(msg, k.Down):
			p.scroll(h, found, 1)
		case key.Matches(msg, k.PageUp):
			p.scroll(h, found, -p.contentHeight())
		case key.Matches(msg, k.PageDown):
			p.scroll(h, found, p.contentHeight())
		case key.Matches(msg, k.Top):
			p.offset = 0
		case key.Matches(msg, k.Bottom):
			p.scroll(h, found, 1<<20)
		}
	default:
		p := v.deliveries
		switch {
		case key.Matches(msg, k.Up):
			p.move(-1)
		case key.Matches(msg, k.Down):
			p.move(1)
		case key.Matches(msg, k.PageUp):
			p.scrollBody(-max(p.contentHeight()/2, 1))
		case key.Matches(msg, k.PageDown):
			p.scrollBody(max(p.contentHeight()/2, 1))
		case key.Matches(msg, k.Top):
			p.move(-len(v.data.deliveries))
		case key.Matches(msg, k.Bottom):
			p.move(len(v.data.deliveries))
		}
	}
	return nil
}

// webhookClick focuses the pane under the pointer and selects the row
// clicked.
func (m *Model) webhookClick(ms tea.Mouse) tea.Cmd {
	if m.overlay != nil || ms.Button != tea.MouseLeft {
		return nil
	}
	v := m.hooks
	l := v.lay
	switch {
	case l.list.contains(ms.X, ms.Y):
		if l.mode != layoutNarrow {
			v.focus = hookList
		}
		if i := v.list.rowAt(ms.Y - l.list.y - 1); i >= 0 && i != v.list.cursor {
			v.list.cursor = i
			v.list.scrollToCursor()
			v.detail.offset = 0
			return m.loadSelectedHook()
		}
	case l.detail.contains(ms.X, ms.Y):
		m.setHookFocus(hookDetail)
	case l.deliveries.contains(ms.X, ms.Y):
		m.setHookFocus(hookDeliveries)
	}
	return nil
}

// webhookWheel scrolls the pane under the pointer.
func (m *Model) webhookWheel(ms tea.Mouse) {
	delta, ok := m.wheelDelta(ms)
	if !ok {
		return
	}
	v := m.hooks
	l := v.lay
	switch {
	case l.list.contains(ms.X, ms.Y):
		v.list.offset = clampInt(v.list.offset+delta/wheelStep, 0, len(v.data.hooks)-v.list.visibleRows())
	case l.detail.contains(ms.X, ms.Y):
		h, found := v.selected()
		v.detail.scroll(h, found, delta)
	case l.deliveries.contains(ms.X, ms.Y):
		v.deliveries.scrollBody(delta)
	}
}
