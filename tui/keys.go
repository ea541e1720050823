package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/keys"
)

// handleKey routes a key press: an open dialog first, then the filter
// input, then the global keys, then the focused pane.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.sh.keys.ForceQuit) {
		return tea.Quit
	}
	if m.overlay != nil {
		cmd, done := m.overlay.handleKey(m.sh, msg)
		if done {
			m.overlay = nil
		}
		return cmd
	}
	if m.messages.filtering {
		m.handleFilterKey(msg)
		return nil
	}
	k := m.sh.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.overlay = &helpScreen{title: "Keys", keys: k, help: m.help,
			notes: []string{"u marks unread locally only: the service has no unread flag."}}
	case key.Matches(msg, k.NextPane):
		m.setFocus(m.focus + 1)
	case key.Matches(msg, k.PrevPane):
		m.setFocus(m.focus - 1)
	case key.Matches(msg, k.Tabs()...):
		return m.switchTab(msg)
	case key.Matches(msg, k.New):
		m.overlay = newCreateForm(m.cmds.createInbox)
	case key.Matches(msg, k.Import):
		m.overlay = newPrompt("Import an inbox", "Path of an exported inbox file (JSON). It holds a secret key.", "", m.cmds.importInbox)
	case key.Matches(msg, k.Resync):
		return m.resync()
	default:
		switch m.focus {
		case paneInboxes:
			return m.inboxKey(msg)
		case paneMessages:
			return m.listKey(msg)
		default:
			return m.messageKey(msg)
		}
	}
	return nil
}

// handleFilterKey edits the filter; the list follows as the user types.
func (m *Model) handleFilterKey(msg tea.KeyPressMsg) {
	p := keys.DefaultPrompt()
	l := m.messages
	switch {
	case key.Matches(msg, p.Accept):
		l.filtering = false
	case key.Matches(msg, p.Cancel):
		l.filtering = false
		l.filter = newField("")
		l.setQuery("")
	default:
		if l.filter.handleKey(m.sh, msg) {
			l.setQuery(l.filter.String())
		}
	}
	m.messages.scrollToCursor()
}

func (m *Model) handlePaste(text string) {
	switch {
	case m.overlay != nil:
		m.overlay.paste(text)
	case m.messages.filtering:
		m.messages.filter.insert(text)
		m.messages.setQuery(m.messages.filter.String())
	}
}

// switchTab shows one of the message tabs (1-6).
func (m *Model) switchTab(msg tea.KeyPressMsg) tea.Cmd {
	for i, b := range m.sh.keys.Tabs() {
		if key.Matches(msg, b) {
			m.message.setTab(tab(i))
		}
	}
	if m.lay.mode == layoutNarrow && m.message.id != "" {
		m.setFocus(paneMessage)
	}
	return m.maybeLoadRaw()
}

// maybeLoadRaw fetches the raw source when the Raw tab shows an email
// whose source is not loaded.
func (m *Model) maybeLoadRaw() tea.Cmd {
	p := m.message
	if p.tab != tabRaw || p.id == "" || p.raw != "" || p.rawLoading || p.rawErr != "" || m.opts.svc == nil {
		return nil
	}
	p.rawLoading = true
	return m.cmds.loadRaw(p.address, p.id)
}

// resync reloads the inbox list and the selected inbox.
func (m *Model) resync() tea.Cmd {
	if m.opts.svc == nil {
		return nil
	}
	cmds := []tea.Cmd{m.cmds.loadInboxes()}
	if e := m.current(); e != nil {
		e.loading = true
		cmds = append(cmds, m.cmds.loadEmails(e.info.EmailAddress), m.startSpinner())
		m.flash("resyncing "+e.info.EmailAddress+"…", levelInfo)
	}
	return tea.Batch(cmds...)
}

func (m *Model) startSpinner() tea.Cmd {
	if m.spinOn {
		return nil
	}
	m.spinOn = true
	return m.spin()
}

// inboxKey handles keys of the inbox list.
func (m *Model) inboxKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.sh.keys
	l := m.inboxes
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.PageUp):
		l.move(-l.visibleRows())
	case key.Matches(msg, k.PageDown):
		l.move(l.visibleRows())
	case key.Matches(msg, k.Top):
		l.move(-len(m.store.entries))
	case key.Matches(msg, k.Bottom):
		l.move(len(m.store.entries))
	case key.Matches(msg, k.Open):
		if l.selected() != nil {
			m.setFocus(paneMessages)
		}
	case key.Matches(msg, k.Delete):
		return m.confirmDeleteInbox()
	case key.Matches(msg, k.Copy):
		return m.copyAddress()
	case key.Matches(msg, k.Export):
		m.promptExport()
	}
	m.messages.setEntry(m.current())
	return nil
}

// listKey handles keys of the message list; actions apply to the email
// under the cursor, filtered or not.
func (m *Model) listKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.sh.keys
	l := m.messages
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.PageUp):
		l.move(-l.page())
	case key.Matches(msg, k.PageDown):
		l.move(l.page())
	case key.Matches(msg, k.Top):
		l.moveTo(0)
	case key.Matches(msg, k.Bottom):
		l.moveTo(len(l.filtered) - 1)
	case key.Matches(msg, k.Open):
		return m.openSelected()
	case key.Matches(msg, k.Back):
		if l.query != "" {
			l.filter = newField("")
			l.setQuery("")
			return nil
		}
		m.setFocus(paneInboxes)
	case key.Matches(msg, k.Filter):
		if l.entry != nil {
			l.filtering = true
			l.filter = newField(l.filter.String())
		}
	case key.Matches(msg, k.Delete):
		if e, ok := l.selected(); ok {
			return m.confirmDeleteEmail(e.ID)
		}
	case key.Matches(msg, k.MarkUnread):
		if e, ok := l.selected(); ok {
			return m.toggleRead(e.ID)
		}
	case key.Matches(msg, k.Copy):
		return m.copyAddress()
	case key.Matches(msg, k.Export):
		m.promptExport()
	default:
		return m.openEmailKey(msg)
	}
	return nil
}

// messageKey handles keys of the message pane.
func (m *Model) messageKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.sh.keys
	p := m.message
	open, found := m.openEmail()
	switch {
	case key.Matches(msg, k.Up):
		p.scroll(open, -1)
	case key.Matches(msg, k.Down):
		p.scroll(open, 1)
	case key.Matches(msg, k.PageUp):
		p.scroll(open, -p.contentHeight())
	case key.Matches(msg, k.PageDown):
		p.scroll(open, p.contentHeight())
	case key.Matches(msg, k.Top):
		p.offset, p.choice = 0, 0
	case key.Matches(msg, k.Bottom):
		p.scroll(open, 1<<20)
	case key.Matches(msg, k.Back):
		m.setFocus(paneMessages)
	case key.Matches(msg, k.Delete):
		if found {
			return m.confirmDeleteEmail(open.ID)
		}
	case key.Matches(msg, k.MarkUnread):
		if found {
			return m.toggleRead(open.ID)
		}
	case key.Matches(msg, k.Copy):
		if p.tab == tabLinks && found && p.choice < len(open.Links) {
			link := open.Links[p.choice]
			m.flash("copied link "+link+" (OSC 52)", levelSuccess)
			return tea.SetClipboard(link)
		}
		return m.copyAddress()
	case key.Matches(msg, k.Export):
		m.promptExport()
	default:
		return m.openEmailKey(msg)
	}
	return nil
}

// openEmailKey handles the keys that act on the open email from the
// message list and the message pane: open link, save, HTML toggle.
func (m *Model) openEmailKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.sh.keys
	p := m.message
	open, found := m.openEmail()
	switch {
	case key.Matches(msg, k.ToggleHTML):
		p.html = !p.html
		p.setTab(tabBody)
		mode := "text part"
		if p.html {
			mode = "HTML part (converted to text)"
		}
		m.flash("showing the "+mode, levelInfo)
	case !found:
		if key.Matches(msg, k.OpenLink, k.Save) {
			m.flash("open a message first (enter)", levelWarn)
		}
	case key.Matches(msg, k.OpenLink):
		switch {
		case p.tab == tabAttachments && p.choice < len(open.Attachments):
			return m.cmds.openAttachment(open.Attachments[p.choice])
		case p.tab == tabLinks && p.choice < len(open.Links):
			return m.cmds.openLink(open.Links[p.choice])
		case len(open.Links) > 0:
			p.setTab(tabLinks)
			m.flash("choose a link with ↑/↓, then o", levelInfo)
		default:
			m.flash("this email has no links", levelWarn)
		}
	case key.Matches(msg, k.Save):
		if p.tab == tabAttachments && p.choice < len(open.Attachments) {
			a := open.Attachments[p.choice]
			m.overlay = newPrompt("Save attachment", "Directory to save "+safeBaseName(a.Filename, "attachment")+" in (an existing file is never overwritten).",
				defaultSaveDir(), func(dir string) tea.Cmd { return m.cmds.saveAttachment(a, dir) })
			return nil
		}
		address, id, subject := p.address, open.ID, open.Subject
		m.overlay = newPrompt("Save as .eml", "Directory to save the raw source (RFC 5322) in (an existing file is never overwritten).",
			defaultSaveDir(), func(dir string) tea.Cmd { return m.cmds.saveRaw(address, id, subject, dir) })
	}
	return nil
}

// openSelected opens the email under the cursor: full content is fetched
// and it is marked read.
func (m *Model) openSelected() tea.Cmd {
	e := m.messages.entry
	sel, ok := m.messages.selected()
	if !ok || e == nil {
		return nil
	}
	address := e.info.EmailAddress
	m.message.open(address, sel.ID)
	if m.lay.mode == layoutNarrow {
		m.setFocus(paneMessage)
	}
	delete(e.fresh, sel.ID)
	var cmds []tea.Cmd
	if m.opts.svc == nil || sel.Problem != "" {
		return nil
	}
	if !sel.HasContent {
		cmds = append(cmds, m.cmds.loadEmail(address, sel.ID))
	}
	if !sel.IsRead {
		e.setRead(sel.ID, true)
		cmds = append(cmds, m.cmds.markRead(address, sel.ID))
	}
	cmds = append(cmds, m.maybeLoadRaw())
	return tea.Batch(cmds...)
}

// toggleRead marks an email read (on the service) or unread (locally: the
// service has no unread flag).
func (m *Model) toggleRead(id string) tea.Cmd {
	e := m.messages.entry
	if m.focus == paneMessage {
		e, _ = m.store.find(m.message.address)
	}
	if e == nil {
		return nil
	}
	em, ok := e.email(id)
	if !ok {
		return nil
	}
	if em.IsRead {
		e.setRead(id, false)
		m.flash("marked unread locally (the service only records read)", levelInfo)
		return nil
	}
	e.setRead(id, true)
	if m.opts.svc == nil {
		return nil
	}
	return m.cmds.markRead(e.info.EmailAddress, id)
}

func (m *Model) copyAddress() tea.Cmd {
	e := m.current()
	if e == nil {
		m.flash("no inbox selected", levelWarn)
		return nil
	}
	m.flash("copied "+e.info.EmailAddress+" (OSC 52)", levelSuccess)
	return tea.SetClipboard(e.info.EmailAddress)
}

func (m *Model) promptExport() {
	e := m.current()
	if e == nil {
		m.flash("no inbox selected", levelWarn)
		return
	}
	address := e.info.EmailAddress
	m.overlay = newPrompt("Export "+address, "File to write (JSON, 0600). It holds the inbox's secret key: keep it safe.",
		safeBaseName(address, "inbox")+".json", func(path string) tea.Cmd { return m.cmds.exportInbox(address, path) })
}

func (m *Model) confirmDeleteInbox() tea.Cmd {
	e := m.current()
	if e == nil {
		return nil
	}
	address := e.info.EmailAddress
	m.overlay = newConfirm(fmt.Sprintf("Delete the inbox %s and all its %d emails on the server?", address, len(e.emails)),
		func() tea.Cmd { return m.cmds.deleteInbox(address) })
	return nil
}

func (m *Model) confirmDeleteEmail(id string) tea.Cmd {
	e := m.messages.entry
	if m.focus == paneMessage {
		e, _ = m.store.find(m.message.address)
	}
	if e == nil {
		return nil
	}
	em, ok := e.email(id)
	if !ok {
		return nil
	}
	subject := em.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	address := e.info.EmailAddress
	m.overlay = newConfirm(fmt.Sprintf("Delete the email %q from %s?", subject, em.From),
		func() tea.Cmd { return m.cmds.deleteEmail(address, id) })
	return nil
}
