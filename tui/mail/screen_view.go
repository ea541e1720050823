package mail

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"sandview/tui/ui"
)

// HandleMouse focuses the pane under the pointer and selects the row
// clicked (clicking the selected email opens it), or scrolls the pane
// under the pointer.
func (s *Screen) HandleMouse(msg tea.MouseMsg) tea.Cmd {
	reading := s.Focus() == PaneReader
	cmd := s.handleMouse(msg)
	if reading && s.Focus() != PaneReader {
		cmd = tea.Batch(cmd, s.catchUp())
	}
	return tea.Batch(cmd, s.followCursor(), s.dwell(), s.fillRows())
}

func (s *Screen) handleMouse(msg tea.MouseMsg) tea.Cmd {
	m := msg.Mouse()
	l := s.lay
	defer s.sync()
	if _, wheel := msg.(tea.MouseWheelMsg); wheel {
		delta := ui.WheelDelta(m)
		switch {
		case l.inboxes.Contains(m.X, m.Y):
			s.inboxes.wheel(delta)
		case l.emails.Contains(m.X, m.Y):
			s.emails.wheel(delta)
			return s.followCursor()
		case l.reader.Contains(m.X, m.Y):
			s.reader.wheel(delta)
		case l.auth.Contains(m.X, m.Y):
			s.auth.wheel(delta)
		}
		return nil
	}
	if _, click := msg.(tea.MouseClickMsg); !click || m.Button != tea.MouseLeft {
		return nil
	}
	switch {
	case l.inboxes.Contains(m.X, m.Y):
		s.setFocus(PaneInboxes)
		s.inboxes.click(m.Y - l.inboxes.Y)
	case l.emails.Contains(m.X, m.Y):
		s.setFocus(PaneEmails)
		if i := s.emails.rowAt(m.Y - l.emails.Y); i >= 0 {
			if s.emails.clickedRow(i) {
				return s.openSelected()
			}
			return s.followCursor()
		}
	case l.reader.Contains(m.X, m.Y):
		s.setFocus(PaneReader)
	}
	return nil
}

// View draws the visible panes.
func (s *panes) View() string {
	l := s.lay
	switch l.mode {
	case ui.Wide:
		right := s.reader.View()
		if l.auth.H > 0 {
			right = ui.Stack(right, s.auth.View())
		}
		var left []string
		if l.inboxes.W > 0 {
			left = append(left, s.inboxes.View())
		}
		if l.emails.W > 0 {
			left = append(left, s.emails.View())
		}
		return ui.Beside(append(left, right)...)
	case ui.Medium:
		list := s.emails.View()
		if l.inboxes.W > 0 {
			list = s.inboxes.View()
		}
		return ui.Stack(list, s.reader.View())
	}
	return s.ring.Focused().View()
}

// ShortHelp is the key line: the focused pane's keys (the search's
// while it is typed), then help.
func (s *Screen) ShortHelp() []key.Binding {
	k := s.ctx.Keys
	return append(s.ring.Focused().ShortHelp(), k.Help)
}

// FullHelp lists every key of the screen.
func (s *Screen) FullHelp() [][]key.Binding { return s.ctx.Keys.FullHelp() }
