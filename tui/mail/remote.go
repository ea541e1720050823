package mail

import (
	"fmt"

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
