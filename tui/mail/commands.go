package mail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
	"sandview/tui/desktop"
	"sandview/tui/mail/reader"
	"sandview/tui/service"
	"sandview/tui/ui"
)

// Every call to the service runs in one of these tea.Cmds, bounded by
// requestTimeout and cancelled with the program's context. Each result
// comes back as one of the messages below, applied by results.go.

const requestTimeout = 60 * time.Second

// commands makes the Cmds of the mail screen.
type commands struct {
	ctx context.Context
	svc service.Service
	// set are the TUI's settings (shared).
	set *ui.Settings
	// temp holds the files opened with other programs.
	temp *desktop.TempDir
	// saveDir is the directory the save dialogs offer.
	saveDir *saveDir
}

// open opens a link or a file with another program.
func (c commands) open(ctx context.Context, target string) error {
	if c.set.Open != nil {
		return c.set.Open(ctx, target)
	}
	return desktop.Opener{}.Open(ctx, target)
}

// run runs tmux or the pipe's shell.
func (c commands) run(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error) {
	if c.set.Run != nil {
		return c.set.Run(ctx, stdin, name, args...)
	}
	return execRunner(ctx, stdin, name, args...)
}

func (c commands) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, requestTimeout)
}

// inboxesLoadedMsg carries the inboxes the client holds after a rescan,
// the loaded ones whose keystore files vanished, and why the keystore
// could not all be read.
type inboxesLoadedMsg struct {
	inboxes  []model.Inbox
	vanished []string
	err      error
}

// emailsLoadedMsg carries every email of an inbox (newest first). err joins
// per-email failures (the emails are still listed, with Problem set) or
// reports that the list could not be fetched (emails nil).
type emailsLoadedMsg struct {
	address string
	emails  []model.Email
	err     error
}

// emailLoadedMsg carries the full content of one email.
type emailLoadedMsg struct {
	address string
	email   model.Email
	err     error
}

// rawLoadedMsg carries the RFC 5322 source of an email.
type rawLoadedMsg struct {
	address, id string
	raw         []byte
	err         error
}

// inboxAddedMsg reports an inbox created or imported (verb says which).
type inboxAddedMsg struct {
	inbox model.Inbox
	verb  string
	err   error
}

// inboxDeletedMsg reports the end of an inbox deletion.
type inboxDeletedMsg struct {
	address string
	err     error
}

// rescan loads what the keystore gained (see Service.Rescan); without
// force, a keystore that did not change sends nothing.
func (c commands) rescan(force bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		changed, vanished, err := c.svc.Rescan(ctx, force)
		if !changed && !force && err == nil {
			return nil
		}
		return inboxesLoadedMsg{inboxes: c.svc.Inboxes(), vanished: vanished, err: err}
	}
}

func (c commands) loadEmails(address string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		emails, err := c.svc.Emails(ctx, address)
		return emailsLoadedMsg{address: address, emails: emails, err: err}
	}
}

func (c commands) loadEmail(address, id string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		e, err := c.svc.Email(ctx, address, id)
		if e.ID == "" {
			e.ID = id
		}
		return emailLoadedMsg{address: address, email: e, err: err}
	}
}

func (c commands) loadRaw(address, id string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		raw, err := c.svc.Raw(ctx, address, id)
		return rawLoadedMsg{address: address, id: id, raw: raw, err: err}
	}
}

// createInbox creates an inbox; a bare local part ("qa-run-17") gets the
// default domain.
func (c commands) createInbox(opts client.CreateInboxOptions) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		if isLocalPart(opts.EmailAddress) {
			domain, err := c.svc.DefaultDomain(ctx)
			if err != nil {
				return inboxAddedMsg{verb: "created", err: fmt.Errorf("find the domain for %s: %w", opts.EmailAddress, err)}
			}
			opts.EmailAddress += "@" + domain
		}
		inbox, err := c.svc.CreateInbox(ctx, opts)
		return inboxAddedMsg{inbox: inbox, verb: "created", err: err}
	}
}

func (c commands) deleteInbox(address string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		return inboxDeletedMsg{address: address, err: c.svc.DeleteInbox(ctx, address)}
	}
}

func (c commands) importInbox(path string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		if err := c.onTheBox(); err != nil {
			return inboxAddedMsg{verb: "imported", err: err}
		}
		inbox, err := c.svc.ImportInbox(ctx, c.expandHome(path))
		return inboxAddedMsg{inbox: inbox, verb: "imported", err: err}
	}
}

func (c commands) exportInbox(address, path string) tea.Cmd {
	return func() tea.Msg {
		if err := c.onTheBox(); err != nil {
			return ui.PromptDoneMsg{Err: err}
		}
		path = c.expandHome(path)
		if _, err := os.Lstat(path); err == nil {
			return ui.PromptDoneMsg{Err: fmt.Errorf("%s already exists; choose another name (nothing was overwritten)", path)}
		}
		if err := c.svc.ExportInbox(address, path); err != nil {
			return ui.PromptDoneMsg{Err: fmt.Errorf("export %s: %w", address, err)}
		}
		return ui.PromptDoneMsg{Status: "exported to " + path + " (it holds the secret key: keep it safe)"}
	}
}

func (c commands) saveAttachment(a model.Attachment, dir string) tea.Cmd {
	return func() tea.Msg {
		if err := c.onTheBox(); err != nil {
			return ui.PromptDoneMsg{Err: err}
		}
		path, err := desktop.SaveUnique(c.expandHome(dir), a.Filename, "attachment", a.Content, 0o600)
		if err != nil {
			return ui.PromptDoneMsg{Err: err}
		}
		return ui.PromptDoneMsg{Status: "saved " + path}
	}
}

// openLink opens an http, https or mailto link with the system opener.
// When the opener is missing or fails, the status says so and the way out
// first (copyKey copies the link), so that an 80-column status line
// keeps them.
func (c commands) openLink(link, copyKey string) tea.Cmd {
	return func() tea.Msg {
		if !reader.OpenableLink(link) {
			return ui.StatusMsg{Text: "only http, https and mailto links are opened", Level: ui.LevelWarn}
		}
		if err := c.open(c.ctx, link); err != nil {
			var open *desktop.OpenError
			if errors.As(err, &open) {
				return ui.StatusMsg{Text: open.Brief(copyKey + " copies the link"), Level: ui.LevelError}
			}
			return ui.StatusMsg{Text: "open link: " + err.Error(), Level: ui.LevelError}
		}
		return ui.StatusMsg{Text: "opened " + link, Level: ui.LevelSuccess}
	}
}

// openAttachment saves an attachment in the screen's private directory
// and opens it with the system opener; the file is removed once the
// opener has had it. When the opener is missing or fails, the status says
// so and the way out first (saveKey saves the attachment).
func (c commands) openAttachment(a model.Attachment, saveKey string) tea.Cmd {
	return func() tea.Msg {
		path, err := c.temp.Open(c.ctx, a.Filename, a.Content, c.open)
		if err != nil {
			var open *desktop.OpenError
			if errors.As(err, &open) {
				return ui.StatusMsg{Text: open.Brief(saveKey + " saves the attachment"), Level: ui.LevelError}
			}
			return ui.StatusMsg{Text: "open attachment: " + err.Error(), Level: ui.LevelError}
		}
		return ui.StatusMsg{Text: "opened " + path, Level: ui.LevelSuccess}
	}
}

// isLocalPart reports whether an address asked for is a bare local part:
// no @ and no dot (a dot makes it a domain).
func isLocalPart(address string) bool {
	return address != "" && !strings.ContainsAny(address, "@.")
}

// expandHome replaces a leading ~/ with the user's home directory, when
// it is known.
func (c commands) expandHome(path string) string {
	if home := c.set.UserHome; home != "" && len(path) >= 2 && path[:2] == "~/" {
		return filepath.Join(home, path[2:])
	}
	return path
}

// What the keys that act on the machine the TUI runs on do in a remote
// session (Settings.Remote, an SSH user's): nothing runs and nothing is
// written on the box; the status says what to run on the user's own
// machine and that command goes to the user's clipboard (OSC 52, which
// travels through SSH).

// remote is the session's remote profile; nil for a local terminal.
func (c commands) remote() *ui.Remote { return c.set.Remote }

// onTheBox refuses a file of the box in a remote session: the keys say
// what to do instead, and this is the last wall before the file system.
func (c commands) onTheBox() error {
	if c.remote() != nil {
		return fmt.Errorf("%w: no file is read or written there", ui.ErrRemote)
	}
	return nil
}

// fetchTargets is the command that downloads the targets' sources.
func fetchTargets(r *ui.Remote, targets []target) string {
	refs := refsOf(targets)
	if len(refs) == 1 {
		return r.FetchEmail(refs[0].address, refs[0].id)
	}
	pairs := make([][2]string, len(refs))
	for i, ref := range refs {
		pairs[i] = [2]string{ref.address, ref.id}
	}
	return r.FetchEmails(pairs)
}

// fetchAttachmentsOf is the command that downloads the targets'
// attachments: an email's folder, or each attachment's own path when
// several emails are marked.
func fetchAttachmentsOf(r *ui.Remote, targets []target) string {
	if len(targets) == 1 {
		return r.FetchFolder(targets[0].entry.info.EmailAddress, targets[0].email.ID)
	}
	pairs := make([][2]string, len(targets))
	for i, t := range targets {
		pairs[i] = [2]string{t.entry.info.EmailAddress, t.email.ID}
	}
	return r.FetchFolders(pairs)
}
