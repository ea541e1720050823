package mail

import (
	"fmt"
	"os"
	"path/filepath"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/ui"
)

// Actions on several emails at once: the marked ones (else the one under
// the cursor or open), or all of an inbox. Each asks once, naming how
// many, and runs as one command whose result says how many worked.

// bulkKey handles the keys that act on emails (targets) or on the inbox:
// delete, read/unread, mark all read, delete all, save the marked ones as
// .eml, save every attachment. handled is false for other keys.
func (a *actions) bulkKey(msg tea.KeyPressMsg, targets []target, inbox *inboxEntry) (tea.Cmd, bool) {
	k := a.ctx.Keys
	switch {
	case key.Matches(msg, k.Delete):
		a.confirmDelete(targets)
	case key.Matches(msg, k.MarkUnread):
		return a.toggleRead(targets), true
	case key.Matches(msg, k.MarkAllRead):
		a.confirmMarkAllRead(inbox)
	case key.Matches(msg, k.DeleteAll):
		a.confirmDeleteAll(inbox)
	case key.Matches(msg, k.Save) && a.state.markedCount() > 0:
		return a.promptSaveEmails(targets), true
	case key.Matches(msg, k.SaveAll):
		return a.promptSaveAttachments(targets), true
	default:
		return a.inboxKey(msg)
	}
	return nil, true
}

// refsOf names the targets.
func refsOf(targets []target) []emailRef {
	refs := make([]emailRef, len(targets))
	for i, t := range targets {
		refs[i] = emailRef{t.entry.info.EmailAddress, t.email.ID}
	}
	return refs
}

// confirmDelete asks before deleting the targets: one email by its
// subject, several by their number.
func (a *actions) confirmDelete(targets []target) {
	switch len(targets) {
	case 0:
		return
	case 1:
		em := targets[0].email
		subject := em.Subject
		if subject == "" {
			subject = "(no subject)"
		}
		a.ctx.Open(ui.NewConfirm(a.ctx, fmt.Sprintf("Delete the email %q from %s?", subject, em.From),
			func() tea.Cmd { return a.cmds.bulk(opDelete, refsOf(targets)) }))
		return
	}
	a.ctx.Open(ui.NewConfirm(a.ctx, fmt.Sprintf("Delete %s on the server?", ui.Plural(len(targets), "marked email", "marked emails")),
		func() tea.Cmd { return a.cmds.bulk(opDelete, refsOf(targets)) }))
}

// confirmDeleteAll asks before deleting every email of an inbox (the
// inbox stays: a QA run starts again with it empty).
func (a *actions) confirmDeleteAll(e *inboxEntry) {
	if e == nil {
		return
	}
	if len(e.emails) == 0 {
		a.ctx.Flash(e.info.EmailAddress+" holds no email", ui.LevelInfo)
		return
	}
	targets := make([]target, len(e.emails))
	for i, m := range e.emails {
		targets[i] = target{entry: e, email: m}
	}
	a.ctx.Open(ui.NewConfirm(a.ctx, fmt.Sprintf("Delete all %s of %s on the server? The inbox stays.", ui.Plural(len(targets), "email", "emails"), e.info.EmailAddress),
		func() tea.Cmd { return a.cmds.bulk(opDelete, refsOf(targets)) }))
}

// toggleRead marks the targets read on the service when any is unread,
// else unread (in this session only: the service cannot unmark).
func (a *actions) toggleRead(targets []target) tea.Cmd {
	var unread []target
	for _, t := range targets {
		if !t.email.IsRead {
			unread = append(unread, t)
		}
	}
	if len(unread) == 0 {
		for _, t := range targets {
			t.entry.setRead(t.email.ID, false)
		}
		if len(targets) > 0 {
			a.ctx.Flash(fmt.Sprintf("marked %s unread in this session (the service only records read)", ui.Plural(len(targets), "email", "emails")), ui.LevelInfo)
		}
		return nil
	}
	return a.markRead(unread)
}

// markRead marks emails read here at once and on the service.
func (a *actions) markRead(targets []target) tea.Cmd {
	for _, t := range targets {
		t.entry.setRead(t.email.ID, true)
	}
	return a.cmds.bulk(opMarkRead, refsOf(targets))
}

// promptSaveEmails asks for a directory to save the targets' raw sources
// in, one .eml each.
func (a *actions) promptSaveEmails(targets []target) tea.Cmd {
	if remote := a.cmds.remote(); remote != nil {
		what := "download them"
		if len(targets) == 1 {
			what = "download it"
		}
		return remote.RunThere(a.ctx, what, fetchTargets(remote, targets))
	}
	refs := refsOf(targets)
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = emlName(t.email)
	}
	a.ctx.Open(a.cmds.saveDir.prompt(a.ctx, "Save "+ui.Plural(len(targets), "email", "emails")+" as .eml",
		"Directory to save the raw sources (RFC 5322) in (an existing file is never overwritten).",
		func(dir string) tea.Cmd { return a.cmds.saveEmails(refs, names, dir) }))
	return nil
}

// promptSaveAttachments asks once for a directory to save every
// attachment of the targets in.
func (a *actions) promptSaveAttachments(targets []target) tea.Cmd {
	n, known := 0, true
	for _, t := range targets {
		n += len(t.email.Attachments)
		known = known && t.email.HasContent
	}
	if known && n == 0 {
		a.ctx.Flash("no attachment to save", ui.LevelWarn)
		return nil
	}
	if remote := a.cmds.remote(); remote != nil {
		return remote.RunThere(a.ctx, "download them", fetchAttachmentsOf(remote, targets))
	}
	what := ui.Plural(n, "attachment", "attachments")
	if !known {
		what = "the attachments"
	}
	refs := refsOf(targets)
	a.ctx.Open(a.cmds.saveDir.prompt(a.ctx, fmt.Sprintf("Save %s of %s", what, ui.Plural(len(targets), "email", "emails")),
		"Directory to save them in (names made safe; an existing file is never overwritten).",
		func(dir string) tea.Cmd { return a.cmds.saveAttachments(refs, dir) }))
	return nil
}

// emlName is the file name of an email saved as .eml: its subject, else
// its id.
func emlName(m model.Email) string {
	if m.Subject != "" {
		return m.Subject + ".eml"
	}
	return m.ID + ".eml"
}

// Files are saved and opened through tui/desktop, as in the CLI: a
// missing directory is created (0700), an existing file never
// overwritten.

// saveDir is the directory the save dialogs offer: the last one typed in
// one of them this session (it is not kept when sandview quits), else
// ~/Downloads when it exists, else the working directory. A nil *saveDir
// offers the default and remembers nothing.
type saveDir struct {
	home string // the user's home directory ("": unknown)
	last string
}

// prompt is a save dialog asking for a directory, offering the one to
// offer; the directory accepted is remembered, then handed to save.
func (s *saveDir) prompt(ctx *ui.Context, title, hint string, save func(dir string) tea.Cmd) *ui.Prompt {
	offer := defaultSaveDir("")
	if s != nil {
		offer = defaultSaveDir(s.home)
		if s.last != "" {
			offer = s.last
		}
	}
	return ui.NewPrompt(ctx, title, hint, offer, func(dir string) tea.Cmd {
		if s != nil {
			s.last = dir
		}
		return save(dir)
	})
}

// defaultSaveDir is where files are saved unless the user says otherwise:
// home/Downloads when it exists, else the working directory.
func defaultSaveDir(home string) string {
	if home != "" {
		dl := filepath.Join(home, "Downloads")
		if info, err := os.Stat(dl); err == nil && info.IsDir() {
			return dl
		}
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "."
}
