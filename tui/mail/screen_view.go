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
		cmd = tea.Batch(cmd, s.previewer.catchUp())
	}
	return tea.Batch(cmd, s.previewer.followCursor(), s.readTimer.dwell(), s.filler.fillRows())
}

func (s *Screen) handleMouse(msg tea.MouseMsg) tea.Cmd {
	m := msg.Mouse()
	p := s.panes
	defer p.sync()
	under, ok := p.lay.At(m.X, m.Y)
	if !ok {
		return nil
	}
	if _, wheel := msg.(tea.MouseWheelMsg); wheel {
		delta := ui.WheelDelta(m)
		switch under.Pane {
		case p.inboxes:
			p.inboxes.wheel(delta)
		case p.emails:
			p.emails.wheel(delta)
			return s.previewer.followCursor()
		case p.reader:
			p.reader.Wheel(delta)
		case p.auth:
			p.auth.wheel(delta)
		}
		return nil
	}
	if _, click := msg.(tea.MouseClickMsg); !click || m.Button != tea.MouseLeft {
		return nil
	}
	switch under.Pane {
	case p.inboxes:
		p.setFocus(PaneInboxes)
		p.inboxes.click(m.Y - under.At.Y)
	case p.emails:
		p.setFocus(PaneEmails)
		if i := p.emails.rowAt(m.Y - under.At.Y); i >= 0 {
			if p.emails.clickedRow(i) {
				return s.previewer.openSelected()
			}
			return s.previewer.followCursor()
		}
	case p.reader:
		p.setFocus(PaneReader)
	}
	return nil
}

// ShortHelp is the key line: the focused pane's keys (the search's
// while it is typed), then help.
func (s *Screen) ShortHelp() []key.Binding {
	k := s.ctx.Keys
	return append(s.panes.ring.Focused().ShortHelp(), k.Help)
}

// FullHelp lists every key of the screen.
func (s *Screen) FullHelp() [][]key.Binding { return s.ctx.Keys.FullHelp() }
