package tui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"sandview/tui/termimage"
	"sandview/tui/ui"
)

// pictures draws the reader's Rendered picture over the frame: the
// program asks the terminal which graphics protocol it has, and after
// every update the picture the mail screen shows is compared with the
// one drawn; a change clears the old one (before the next frame, so no
// pixels stay behind; after a resize the frame is painted again after
// the clearing) and draws the new one a few frames later, over the blank
// cells the frame left for it. The sequences go to this program's
// output only: over SSH, the session's.
type pictures struct {
	hints termimage.Hints
	det   *termimage.Detector
	// key and at are the picture drawn or being drawn ("": none).
	key string
	at  termimage.Place
	// w and h are the window's size when it was drawn.
	w, h int
}

// paintDelay is how long a picture waits for the frame that blanks its
// cells to be written (a few frames at bubbletea's 60 a second).
const paintDelay = 50 * time.Millisecond

// paintMsg is an encoded picture ready to write.
type paintMsg struct {
	key, seq string
}

// askTerminal asks the terminal for its cell size, its kitty graphics
// and its DA1 (which ends the asking).
func (p *pictures) askTerminal() tea.Cmd {
	q := p.hints.Query()
	if q == "" {
		return nil
	}
	return tea.Raw(ansi.XTWINOPS(16) + q) // CSI 16 t: the cell size in pixels
}

// answer takes the terminal's answers; it reports whether msg was one.
func (p *pictures) answer(g *ui.Graphics, msg tea.Msg) bool {
	switch msg := msg.(type) {
	case uv.KittyGraphicsEvent:
		p.det.KittyReply(msg.Options.ID, string(msg.Payload))
	case uv.PrimaryDeviceAttributesEvent:
		g.Protocol, g.Known = p.det.DeviceAttributes(msg), true
		g.Tmux, g.Why = p.det.Passthrough(), p.hints.Why()
	case uv.CellSizeEvent:
		g.Cell = termimage.CellSize{W: msg.Width, H: msg.Height}
	default:
		return false
	}
	return true
}

// updatePicture compares the picture the screen wants with the one drawn.
func (a *App) updatePicture() tea.Cmd {
	p := a.pics
	want, ok := a.mail.Picture()
	if a.showHooks || a.keyRefused != "" || a.ctx.Dialog() != nil {
		ok = false
	}
	g := a.ctx.Graphics
	var at termimage.Place
	key := ""
	if ok {
		at = termimage.Place{X: want.At.X, Y: want.At.Y + a.bodyTop(), Cols: want.At.W, Rows: want.At.H, ID: 1, Tmux: g.Tmux}
		key = want.Key + "@" + strings.Join([]string{strconv.Itoa(at.X), strconv.Itoa(at.Y), strconv.Itoa(at.Cols), strconv.Itoa(at.Rows)}, ",")
	}
	// A resized window is repainted whole, which erases a sixel or
	// iTerm2 picture: it is drawn again even where it stays.
	resized := p.w != a.width || p.h != a.height
	p.w, p.h = a.width, a.height
	if key == p.key && !resized {
		return nil
	}
	var cmds []tea.Cmd
	if p.key != "" {
		clear := tea.Raw(termimage.Clear(g.Protocol, p.at))
		if resized {
			// The blanks of the old picture's cells are written after
			// the frame of the new size, over its text: the frame is
			// painted again after them.
			clear = tea.Sequence(clear, tea.ClearScreen)
		}
		cmds = append(cmds, clear)
	}
	p.key, p.at = key, at
	if ok {
		img, proto := want.Img, g.Protocol
		cmds = append(cmds, a.ctx.Tick(paintDelay, func(time.Time) tea.Msg {
			var b strings.Builder
			if err := termimage.Encode(&b, img, proto, at); err != nil {
				return ui.StatusMsg{Text: "draw the picture: " + err.Error(), Level: ui.LevelError}
			}
			return paintMsg{key: key, seq: b.String()}
		}))
	}
	return tea.Batch(cmds...)
}

// paint writes an encoded picture that is still the one wanted.
func (p *pictures) paint(msg paintMsg) tea.Cmd {
	if msg.key != p.key {
		return nil
	}
	return tea.Raw(msg.seq)
}
