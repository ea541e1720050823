package termimage

import (
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
)

// answer feeds a terminal's answer, as bytes, through the decoder the
// program reads its input with (ultraviolet's, under bubbletea) and hands
// the events to the detector, as the TUI does.
func answer(t *testing.T, d *Detector, in string) (Protocol, bool) {
	t.Helper()
	var dec uv.EventDecoder
	b := []byte(in)
	for len(b) > 0 {
		n, ev := dec.Decode(b)
		if n == 0 {
			t.Fatalf("undecodable answer %q", b)
		}
		b = b[n:]
		switch ev := ev.(type) {
		case uv.KittyGraphicsEvent:
			d.KittyReply(ev.Options.ID, string(ev.Payload))
		case uv.PrimaryDeviceAttributesEvent:
			d.DeviceAttributes(ev)
		}
	}
	return d.Result()
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hints  Hints
		answer string
		want   Protocol
		tmux   bool
	}{
		{"kitty answers OK", Hints{Term: "xterm-kitty"}, "\x1b_Gi=31;OK\x1b\\\x1b[?62;22c", Kitty, false},
		{"kitty answers, unnamed", Hints{}, "\x1b_Gi=31;OK\x1b\\\x1b[?62;c", Kitty, false},
		{"kitty query refused", Hints{}, "\x1b_Gi=31;ENOTSUPPORTED:no\x1b\\\x1b[?62;22c", None, false},
		{"xterm -ti vt340: sixel in DA1", Hints{Term: "xterm"}, "\x1b[?63;1;2;4;6;9;15;16;22;28c", Sixel, false},
		{"plain xterm", Hints{Term: "xterm-256color"}, "\x1b[?65;1;9c", None, false},
		{"iTerm2 by TERM_PROGRAM", Hints{TermProgram: "iTerm.app"}, "\x1b[?62;4c", ITerm2, false},
		{"iTerm2 over SSH by LC_TERMINAL", Hints{LCTerminal: "iTerm2"}, "\x1b[?62;c", ITerm2, false},
		{"WezTerm", Hints{TermProgram: "WezTerm"}, "\x1b[?65;4;6;18;22c", ITerm2, false},
		{"tmux with sixel", Hints{Tmux: true, TermProgram: "tmux"}, "\x1b[?1;2;4c", Sixel, false},
		{"tmux in iTerm2 over SSH", Hints{Tmux: true, LCTerminal: "iTerm2"}, "\x1b[?1;2c", ITerm2, true},
		{"tmux without graphics", Hints{Tmux: true}, "\x1b[?1;2c", None, false},
		{"not asked", Hints{Term: "xterm-kitty"}, "\x1b_Gi=31;OK\x1b\\\x1b[?62;4c", None, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "not asked" {
				tc.hints.Ask = true
			}
			d := NewDetector(tc.hints)
			if _, done := d.Result(); done {
				t.Fatal("decided before DA1")
			}
			got, done := answer(t, d, tc.answer)
			if !done || got != tc.want {
				t.Fatalf("got %s (done %v), want %s", got, done, tc.want)
			}
			if d.Passthrough() != tc.tmux {
				t.Fatalf("passthrough %v, want %v", d.Passthrough(), tc.tmux)
			}
		})
	}
}

func TestQuery(t *testing.T) {
	q := Hints{Ask: true}.Query()
	if !strings.HasPrefix(q, "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\") || !strings.HasSuffix(q, "\x1b[c") {
		t.Fatalf("query %q: want the kitty graphics query, then DA1", q)
	}
	if (Hints{}).Query() != "" {
		t.Fatal("not to be asked: nothing asked")
	}
	if !strings.Contains(Hints{Ask: true, Tmux: true}.Why(), "allow-passthrough") || !strings.Contains(Hints{Ask: true}.Why(), "sixel") {
		t.Fatal("the reason should say what the picture needs")
	}
}
