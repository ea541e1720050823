package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"sandview/tui/ui"
)

// noticeMsg is one line of Config.Notices.
type noticeMsg string

// waitNotice waits for the next notice, until the program's context ends.
func waitNotice(ctx context.Context, notices <-chan string) tea.Cmd {
	if notices == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case text := <-notices:
			return noticeMsg(text)
		case <-ctx.Done():
			return nil
		}
	}
}

// showNotice shows a notice in the status bar and keeps it in the log,
// then waits for the next.
func (a *App) showNotice(msg noticeMsg) tea.Cmd {
	a.ctx.Flash(string(msg), ui.LevelWarn)
	return waitNotice(a.runCtx, a.cfg.Notices)
}
