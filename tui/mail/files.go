package mail

import (
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"sandview/tui/ui"
)

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
