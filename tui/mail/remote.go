package mail

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/ui"
)

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

// runThere shows, in a dialog wide enough for it, command as the way to
// do something on the user's own machine (what: "download it"), and
// copies it there.
func runThere(ctx *ui.Context, what, command string) tea.Cmd {
	ctx.Open(ui.NewTextDialog(ctx, "Over SSH", ui.WrapLines(
		"Over SSH nothing is run or written on the box. To "+what+", run this on your own machine (copied to your clipboard):\n\n"+command)))
	return tea.Batch(tea.SetClipboard(command), status("copied the command to your clipboard (OSC 52)", ui.LevelInfo))
}

// copyLinkThere copies a link instead of opening it on the box.
func copyLinkThere(link string) tea.Cmd {
	return tea.Batch(tea.SetClipboard(link), status("copied the link to your clipboard (over SSH nothing is opened on the box): "+link, ui.LevelInfo))
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

// pipeThere is the pipe's way out over SSH: download the source and pipe
// it on the user's machine.
func pipeThere(ctx *ui.Context, r *ui.Remote, address string, m model.Email) tea.Cmd {
	return runThere(ctx, "download it and pipe it", r.FetchEmail(address, m.ID))
}
