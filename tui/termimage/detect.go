package termimage

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Hints is what the environment says about the terminal; internal/cli
// reads it from the process's environment, or from an SSH session's.
type Hints struct {
	Term        string // TERM
	TermProgram string // TERM_PROGRAM (iTerm.app, WezTerm, ghostty, tmux…)
	LCTerminal  string // LC_TERMINAL, which iTerm2 sends over SSH
	KittyWindow bool   // KITTY_WINDOW_ID is set
	Tmux        bool   // TMUX is set: inside tmux
	// Ask lets the program ask the terminal (a terminal of its own);
	// without it nothing is asked and no picture drawn.
	Ask bool
}

// ByName is the protocol the terminal's name promises, None when it
// names none of the terminals known to draw pictures.
func (h Hints) ByName() Protocol {
	prog := strings.ToLower(h.TermProgram)
	switch {
	case h.KittyWindow, strings.Contains(strings.ToLower(h.Term), "kitty"), prog == "ghostty":
		return Kitty
	case prog == "iterm.app", prog == "wezterm", strings.EqualFold(h.LCTerminal, "iTerm2"):
		return ITerm2
	}
	return None
}

// probeID is the image id of the kitty graphics query.
const probeID = 31

// Query is what to ask the terminal: the kitty graphics query (a 1x1
// RGB image it only checks, answered by a terminal that has the
// protocol) and then DA1, which every terminal answers, so its answer
// ends the wait for the first.
func (h Hints) Query() string {
	if !h.Ask {
		return ""
	}
	return ansi.KittyGraphics([]byte("AAAA"), "i=31", "s=1", "v=1", "a=q", "t=d", "f=24") + ansi.RequestPrimaryDeviceAttributes
}

// Detector gathers the terminal's answers to Query and decides.
type Detector struct {
	hints   Hints
	kittyOK bool
	done    bool
	result  Protocol
}

// NewDetector starts deciding for a terminal with these hints.
func NewDetector(h Hints) *Detector { return &Detector{hints: h} }

// KittyReply takes an answer to a kitty graphics command: image id and
// its message ("OK" or an error).
func (d *Detector) KittyReply(id int, message string) {
	if id == probeID && strings.HasPrefix(message, "OK") {
		d.kittyOK = true
	}
}

// DeviceAttributes takes the DA1 answer's attributes (4 is sixel) and
// decides: kitty when the kitty query was answered OK before it, else
// the protocol the terminal's name promises (iTerm2 answers neither
// query with its protocol), else sixel when DA1 lists it.
func (d *Detector) DeviceAttributes(attrs []int) Protocol {
	d.done = true
	sixel := false
	for _, a := range attrs {
		sixel = sixel || a == 4
	}
	switch name := d.hints.ByName(); {
	case !d.hints.Ask:
		d.result = None
	case d.kittyOK:
		d.result = Kitty
	case name != None:
		d.result = name
	case sixel:
		d.result = Sixel
	default:
		d.result = None
	}
	return d.result
}

// Result is the decision, and whether it has been made (DA1 answered).
func (d *Detector) Result() (Protocol, bool) { return d.result, d.done }

// Passthrough reports whether pictures must go through tmux's
// passthrough: inside tmux for kitty and iTerm2, which tmux does not
// draw itself (a tmux that answers DA1 with sixel draws sixel itself).
func (d *Detector) Passthrough() bool {
	return d.hints.Tmux && d.result != Sixel && d.result != None
}

// Why is one line saying why a terminal without graphics shows text.
func (h Hints) Why() string {
	switch {
	case !h.Ask:
		return "this terminal was not asked for its graphics"
	case h.Tmux:
		return "this terminal (through tmux) answered no graphics protocol: the picture needs kitty graphics, iTerm2 images or sixel (tmux: set -g allow-passthrough on, or a tmux built with sixel)"
	}
	return "this terminal answered no graphics protocol: the picture needs kitty graphics, iTerm2 images or sixel (kitty, WezTerm, iTerm2, foot, xterm -ti vt340)"
}
