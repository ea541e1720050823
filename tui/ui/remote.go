package ui

import (
	"context"
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
)

// Remote is the fixed profile of a session whose terminal is on another
// machine (an SSH user's on a shared box): the TUI starts no program on
// the machine it runs on (no opener, browser, shell or tmux), writes no
// file there and reaches none of its private addresses; the keys that
// would say how to do it on the user's own machine instead, and copy
// that command to the user's clipboard with OSC 52.
type Remote struct {
	// Fetch copies a file of the user's download tree (SFTP) to the
	// working directory when followed by its path: "scp -P 2222 box:".
	Fetch string
	// Shell runs a command of the box for the user: "ssh -p 2222 box".
	Shell string
	// AttachmentNames name an email's attachments in that tree (its
	// folder ADDRESS/ID/); nil: their file names.
	AttachmentNames func([]model.Attachment) []string
}

// ErrRemote is what a program or a file on the box would have been
// asked for by a remote session.
var ErrRemote = errors.New("not on the box over SSH")

// FetchEmail is the command that downloads an email's source.
func (r *Remote) FetchEmail(address, id string) string {
	return r.FetchEmails([][2]string{{address, id}})
}

// FetchEmails is the command that downloads the sources of emails, each
// an {address, id}.
func (r *Remote) FetchEmails(refs [][2]string) string {
	paths := make([]string, len(refs))
	for i, ref := range refs {
		paths[i] = ref[0] + "/" + ref[1] + ".eml"
	}
	return r.scp(false, paths)
}

// FetchFolder is the command that downloads an email's attachments (the
// folder ADDRESS/ID).
func (r *Remote) FetchFolder(address, id string) string {
	return r.FetchFolders([][2]string{{address, id}})
}

// FetchFolders is the command that downloads the attachments of emails,
// each an {address, id}.
func (r *Remote) FetchFolders(refs [][2]string) string {
	paths := make([]string, len(refs))
	for i, ref := range refs {
		paths[i] = ref[0] + "/" + ref[1]
	}
	return r.scp(true, paths)
}

// FetchAttachment is the command that downloads attachment i of an
// email.
func (r *Remote) FetchAttachment(address, id string, attachments []model.Attachment, i int) string {
	name := attachments[i].Name()
	if r.AttachmentNames != nil {
		name = r.AttachmentNames(attachments)[i]
	}
	return r.scp(false, []string{address + "/" + id + "/" + name})
}

// scp is Fetch with each path of the tree as a source (the host part,
// Fetch's last word "box:", before each but the first), recursive for
// folders, into the working directory.
func (r *Remote) scp(folders bool, paths []string) string {
	fetch := r.Fetch
	if folders {
		fetch = strings.Replace(fetch, "scp ", "scp -r ", 1)
	}
	host := ""
	if fields := strings.Fields(r.Fetch); len(fields) > 0 {
		host = fields[len(fields)-1]
	}
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = shellQuote(p)
	}
	return fetch + strings.Join(quoted, " "+host) + " ."
}

// shellQuote quotes a path for a POSIX shell: as it is when it holds only
// safe characters, else in single quotes.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./_-", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Confine fixes s to the remote profile r: whatever the session's
// environment gave, no program is started (Open and Run refuse), no shell
// or tmux is used, no directory of the box is offered or written (no
// UserHome, no TempDir).
func (s *Settings) Confine(r *Remote) {
	s.Remote = r
	s.Shell, s.UserHome, s.TempDir, s.InTmux = "", "", "", false
	s.Open = func(context.Context, string) error { return ErrRemote }
	s.Run = func(context.Context, []byte, string, ...string) ([]byte, error) { return nil, ErrRemote }
}

// RunThere shows, in a dialog wide enough for it, command as the way to
// do something on the user's own machine (what: "download it"), and
// copies it there.
func (r *Remote) RunThere(ctx *Context, what, command string) tea.Cmd {
	ctx.Open(NewTextDialog(ctx, "Over SSH", WrapLines(
		"Over SSH nothing is run or written on the box. To "+what+", run this on your own machine (copied to your clipboard):\n\n"+command)))
	return tea.Batch(tea.SetClipboard(command), StatusCmd("copied the command to your clipboard (OSC 52)", LevelInfo))
}

// CopyLinkThere copies a link instead of opening it on the box.
func (r *Remote) CopyLinkThere(link string) tea.Cmd {
	return tea.Batch(tea.SetClipboard(link), StatusCmd("copied the link to your clipboard (over SSH nothing is opened on the box): "+link, LevelInfo))
}

// StatusCmd is a Cmd that shows a status message.
func StatusCmd(text string, level Level) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text, Level: level} }
}
