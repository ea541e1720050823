package reader

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
)

// Host is the screen the reader is in: it holds the emails the reader
// shows and does what the reader asks of the world outside the pane.
type Host interface {
	// Email is email id of the inbox address as the screen holds it.
	Email(address, id string) (model.Email, bool)
	// LoadRaw fetches the RFC 5322 source of an email; the screen hands
	// it back with SetRaw.
	LoadRaw(address, id string) tea.Cmd
	// Raw fetches the RFC 5322 source of an email now (the pipe's input).
	Raw(ctx context.Context, address, id string) ([]byte, error)
	// Run runs a program with stdin as its input (the pipe's shell).
	Run(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error)
	// Copy puts text on the clipboard; what names it in the status.
	Copy(text, what string) tea.Cmd
	// OpenLink opens a link with the system opener; the status names
	// copyKey as the way out when it fails.
	OpenLink(link, copyKey string) tea.Cmd
	// OpenAttachment opens an attachment with the system opener; the
	// status names saveKey as the way out when it fails.
	OpenAttachment(a model.Attachment, saveKey string) tea.Cmd
	// OpenHTML opens the HTML part of m in the browser.
	OpenHTML(m model.Email) tea.Cmd
	// SaveAttachment asks where to save an attachment and saves it.
	SaveAttachment(a model.Attachment) tea.Cmd
	// SaveEmail asks where to save email m of inbox address as .eml.
	SaveEmail(address string, m model.Email) tea.Cmd
	// AuthLines lays the authentication report of m out in width cells.
	AuthLines(m model.Email, width int) []string
}

// Update applies the result of one of the reader's commands (a link
// checked, a render done, a pipe run); ok is false for other messages.
func (r *Reader) Update(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case linksCheckedMsg:
		return r.checks.done(r.ctx, msg), true
	case renderedMsg:
		r.rendered.done(msg)
	case pipeDoneMsg:
		r.pipe.done(msg)
	default:
		return nil, false
	}
	return nil, true
}
