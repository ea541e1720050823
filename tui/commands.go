package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
)

// Every call to the service runs in one of these tea.Cmds, bounded by
// requestTimeout and cancelled with the program's context.

const requestTimeout = 60 * time.Second

type cmds struct {
	ctx  context.Context
	svc  service
	open func(ctx context.Context, target string) error
}

func (c cmds) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, requestTimeout)
}

func (c cmds) loadInboxes() tea.Cmd {
	return func() tea.Msg { return inboxesLoadedMsg{inboxes: c.svc.Inboxes()} }
}

func (c cmds) loadEmails(address string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		emails, err := c.svc.Emails(ctx, address)
		return emailsLoadedMsg{address: address, emails: emails, err: err}
	}
}

func (c cmds) loadEmail(address, id string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		e, err := c.svc.Email(ctx, address, id)
		if err == nil && e.ID == "" {
			e.ID = id
		}
		return emailLoadedMsg{address: address, email: e, err: err}
	}
}

func (c cmds) loadRaw(address, id string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		raw, err := c.svc.Raw(ctx, address, id)
		return rawLoadedMsg{address: address, id: id, raw: raw, err: err}
	}
}

func (c cmds) markRead(address, id string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		return markedReadMsg{address: address, id: id, err: c.svc.MarkRead(ctx, address, id)}
	}
}

func (c cmds) deleteEmail(address, id string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		return emailDeletedMsg{address: address, id: id, err: c.svc.DeleteEmail(ctx, address, id)}
	}
}

func (c cmds) createInbox(in createInboxInput) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		inbox, err := c.svc.CreateInbox(ctx, in)
		return inboxCreatedMsg{inbox: inbox, err: err}
	}
}

func (c cmds) deleteInbox(address string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		return inboxDeletedMsg{address: address, err: c.svc.DeleteInbox(ctx, address)}
	}
}

func (c cmds) importInbox(path string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		inbox, err := c.svc.ImportInbox(ctx, expandHome(path))
		return inboxImportedMsg{inbox: inbox, path: path, err: err}
	}
}

// promptDoneMsg ends the work of a prompt: an error keeps the prompt open
// with what was typed; success closes it and flashes status.
type promptDoneMsg struct {
	status string
	err    error
}

func (c cmds) exportInbox(address, path string) tea.Cmd {
	return func() tea.Msg {
		path = expandHome(path)
		if _, err := os.Lstat(path); err == nil {
			return promptDoneMsg{err: fmt.Errorf("%s already exists; choose another name (nothing was overwritten)", path)}
		}
		if err := c.svc.ExportInbox(address, path); err != nil {
			return promptDoneMsg{err: fmt.Errorf("export %s: %w", address, err)}
		}
		return promptDoneMsg{status: "exported to " + path + " (it holds the secret key: keep it safe)"}
	}
}

func (c cmds) saveAttachment(a model.Attachment, dir string) tea.Cmd {
	return func() tea.Msg {
		path, err := saveUnique(expandHome(dir), a.Filename, "attachment", a.Content)
		if err != nil {
			return promptDoneMsg{err: err}
		}
		return promptDoneMsg{status: "saved " + path}
	}
}

func (c cmds) saveRaw(address, id, subject, dir string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := c.call()
		defer cancel()
		raw, err := c.svc.Raw(ctx, address, id)
		if err != nil {
			return promptDoneMsg{err: fmt.Errorf("fetch the raw source: %w", err)}
		}
		name := subject
		if name == "" {
			name = id
		}
		path, err := saveUnique(expandHome(dir), name+".eml", "message.eml", raw)
		if err != nil {
			return promptDoneMsg{err: err}
		}
		return promptDoneMsg{status: "saved " + path}
	}
}

// openLink opens an http, https or mailto link with the system opener.
func (c cmds) openLink(link string) tea.Cmd {
	return func() tea.Msg {
		if !openableLink(link) {
			return statusMsg{text: "only http, https and mailto links are opened", level: levelWarn}
		}
		if err := c.open(c.ctx, link); err != nil {
			return statusMsg{text: "open link: " + err.Error(), level: levelError}
		}
		return statusMsg{text: "opened " + link, level: levelSuccess}
	}
}

// openAttachment saves an attachment in a fresh temporary directory and
// opens it with the system opener.
func (c cmds) openAttachment(a model.Attachment) tea.Cmd {
	return func() tea.Msg {
		dir, err := os.MkdirTemp("", "sandview-")
		if err != nil {
			return statusMsg{text: "open attachment: " + err.Error(), level: levelError}
		}
		path, err := saveUnique(dir, a.Filename, "attachment", a.Content)
		if err != nil {
			return statusMsg{text: "open attachment: " + err.Error(), level: levelError}
		}
		if err := c.open(c.ctx, path); err != nil {
			return statusMsg{text: "open attachment: " + err.Error(), level: levelError}
		}
		return statusMsg{text: "opened " + path, level: levelSuccess}
	}
}

// expandHome replaces a leading ~/ with the home directory.
func expandHome(path string) string {
	if len(path) >= 2 && path[:2] == "~/" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, path[2:])
		}
	}
	return path
}

// errorText is the message of err for the status bar, with the joined
// per-email failures summarised.
func errorText(err error) string {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		if n := len(joined.Unwrap()); n > 1 {
			return fmt.Sprintf("%d emails could not be opened (first: %v)", n, joined.Unwrap()[0])
		}
	}
	return model.SanitizeLine(err.Error())
}
