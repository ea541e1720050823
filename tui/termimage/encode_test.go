package termimage

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/charmbracelet/x/ansi/sixel"

	"sandview/tui/termimage/termimagetest"
)

// newsletter is a picture like a rendered mail: a white page, a coloured
// header band, a button, grey lines of "text" and a grainy gradient
// "photo".
func newsletter(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 255, 255, 255}
			switch {
			case y < h/6:
				c = color.RGBA{30, 80, 160, 255}
			case y > h/3 && y < h/3+h/12 && x > w/4 && x < 3*w/4:
				c = color.RGBA{230, 90, 40, 255}
			case y > h/2 && y < 3*h/4 && (y/4)%2 == 0 && x > 10 && x < w-10:
				c = color.RGBA{90, 90, 90, 255}
			case y >= 3*h/4:
				grain := uint8((x*7919 + y*104729) % 23) // a photo's grain, which PNG cannot squeeze
				c = color.RGBA{uint8(x*255/w) ^ grain, uint8(y*255/h) ^ grain, 120, 255}
			}
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

// unwrapTmux undoes tmux's passthrough: the DCS tmux; … ST around each
// sequence and the doubled escapes inside.
func unwrapTmux(t *testing.T, s string) string {
	t.Helper()
	var out strings.Builder
	for s != "" {
		i := strings.Index(s, "\x1bPtmux;")
		if i < 0 {
			out.WriteString(s)
			break
		}
		out.WriteString(s[:i])
		s = s[i+len("\x1bPtmux;"):]
		var inner strings.Builder
		for {
			if s == "" {
				t.Fatal("tmux passthrough not terminated")
			}
			if strings.HasPrefix(s, "\x1b\x1b") {
				inner.WriteByte(0x1b)
				s = s[2:]
				continue
			}
			if strings.HasPrefix(s, "\x1b\\") {
				s = s[2:]
				break
			}
			inner.WriteByte(s[0])
			s = s[1:]
		}
		out.WriteString(inner.String())
	}
	return out.String()
}

// kittyDecode reads the chunks of kitty's transmission back into the
// picture with x/ansi's kitty decoder; it checks the chunk sizes and the
// more-chunks flags on the way.
func kittyDecode(t *testing.T, s string) image.Image {
	t.Helper()
	var payload strings.Builder
	chunks := 0
	for _, part := range strings.Split(s, "\x1b_G")[1:] {
		body, _, ok := strings.Cut(part, "\x1b\\")
		if !ok {
			t.Fatalf("kitty command not terminated: %.40q", part)
		}
		keys, data, _ := strings.Cut(body, ";")
		if strings.Contains(keys, "a=d") {
			continue // the delete before the put
		}
		chunks++
		if len(data) > kitty.MaxChunkSize {
			t.Fatalf("chunk of %d bytes, over kitty's %d", len(data), kitty.MaxChunkSize)
		}
		if chunks == 1 && (!strings.Contains(keys, "a=T") || !strings.Contains(keys, "f=100") || !strings.Contains(keys, "i=7") || !strings.Contains(keys, "C=1")) {
			t.Fatalf("first chunk's keys %q: want a transmit-and-put of PNG, id 7, cursor kept", keys)
		}
		payload.WriteString(data)
	}
	if want := (payload.Len() + kitty.MaxChunkSize - 1) / kitty.MaxChunkSize; chunks != want || chunks < 2 {
		t.Fatalf("%d chunk(s) for %d bytes: want %d, and more than one", chunks, payload.Len(), want)
	}
	raw, err := base64.StdEncoding.DecodeString(payload.String())
	if err != nil {
		t.Fatal(err)
	}
	img, err := (&kitty.Decoder{Format: kitty.PNG}).Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// iterm2Decode reads the base64 PNG of an iTerm2 inline image.
func iterm2Decode(t *testing.T, s string) image.Image {
	t.Helper()
	_, rest, ok := strings.Cut(s, "\x1b]1337;File=")
	if !ok {
		t.Fatalf("no iTerm2 file in %.60q", s)
	}
	args, rest, _ := strings.Cut(rest, ":")
	if !strings.Contains(args, "inline=1") {
		t.Fatalf("args %q: not inline", args)
	}
	data, _, ok := strings.Cut(rest, "\a")
	if !ok {
		t.Fatal("iTerm2 file not terminated by BEL")
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// sixelDecode reads a sixel DCS back with x/ansi's sixel decoder.
func sixelDecode(t *testing.T, s string) image.Image {
	t.Helper()
	i := strings.Index(s, "\x1bP")
	if i < 0 {
		t.Fatalf("no DCS in %.60q", s)
	}
	body := s[i+2:]
	q := strings.IndexByte(body, 'q')
	end := strings.Index(body, "\x1b\\")
	if q < 0 || end < q {
		t.Fatal("sixel DCS malformed")
	}
	img, err := (&sixel.Decoder{}).Decode(strings.NewReader(expandRepeats(t, body[q+1:end])))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// expandRepeats writes each repeat (!n c) of sixel data out as n c's:
// x/ansi's decoder (v0.11.9) reads the sixel characters after a repeat
// into the repeat and drops them.
func expandRepeats(t *testing.T, data string) string {
	t.Helper()
	var b strings.Builder
	for {
		i := strings.IndexByte(data, '!')
		if i < 0 {
			b.WriteString(data)
			return b.String()
		}
		b.WriteString(data[:i])
		j := i + 1
		for j < len(data) && data[j] >= '0' && data[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(data[i+1 : j])
		if err != nil || j == len(data) {
			t.Fatalf("bad repeat %.10q", data[i:])
		}
		b.WriteString(strings.Repeat(data[j:j+1], n))
		data = data[j+1:]
	}
}

// compare fails when got differs from want in size, by more than
// meanTol on average (per channel, 0-255) or in more than wrongTol of
// its pixels.
func compare(t *testing.T, got, want image.Image, meanTol, wrongTol float64) {
	t.Helper()
	d := termimagetest.Diff(got, want)
	if d.Mean < 0 {
		t.Fatalf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
	}
	if d.Mean > meanTol || d.Wrong > wrongTol {
		t.Fatalf("differs from the source: mean %.2f (limit %.2f), %.2f%% of the pixels wrong (limit %.2f%%)", d.Mean, meanTol, 100*d.Wrong, 100*wrongTol)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	src := newsletter(600, 400)
	for _, tmux := range []bool{false, true} {
		at := Place{X: 3, Y: 2, Cols: 30, Rows: 10, ID: 7, Tmux: tmux}
		for _, tc := range []struct {
			p        Protocol
			decode   func(*testing.T, string) image.Image
			meanTol  float64
			wrongTol float64
		}{
			{Kitty, kittyDecode, 0, 0},
			{ITerm2, iterm2Decode, 0, 0},
			// 256 colours by median cut, sixel's levels are 0-100.
			{Sixel, sixelDecode, 2, 0.001},
		} {
			t.Run(tc.p.String()+map[bool]string{true: "/tmux"}[tmux], func(t *testing.T) {
				var b strings.Builder
				if err := Encode(&b, src, tc.p, at); err != nil {
					t.Fatal(err)
				}
				s := b.String()
				if tmux {
					if !strings.HasPrefix(s, "\x1b7\x1b[3;4H\x1bPtmux;") {
						t.Fatalf("not wrapped for tmux at row 3 col 4: %.30q", s)
					}
					s = unwrapTmux(t, s)
				}
				if !strings.HasPrefix(s, "\x1b7\x1b[3;4H") || !strings.HasSuffix(s, "\x1b8") {
					t.Fatalf("not placed at row 3 col 4 with the cursor saved and restored: %.20q…%q", s, s[len(s)-4:])
				}
				compare(t, tc.decode(t, s), src, tc.meanTol, tc.wrongTol)
			})
		}
	}
}

func TestEncodeHereAndNone(t *testing.T) {
	var b strings.Builder
	if err := Encode(&b, newsletter(20, 20), None, Place{}); err != nil || b.Len() != 0 {
		t.Fatalf("None wrote %q, %v", b.String(), err)
	}
	if err := Encode(&b, newsletter(20, 20), Sixel, Place{Here: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "\x1bP0;0q") {
		t.Fatalf("Here should write the picture at the cursor: %.20q", b.String())
	}
}

func TestClear(t *testing.T) {
	at := Place{X: 4, Y: 1, Cols: 6, Rows: 3, ID: 9}
	if got := Clear(Kitty, at); got != "\x1b_Ga=d,d=I,i=9,q=2\x1b\\" {
		t.Fatalf("kitty clear %q", got)
	}
	want := "\x1b7\x1b[2;5H      \x1b[3;5H      \x1b[4;5H      \x1b8"
	for _, p := range []Protocol{Sixel, ITerm2} {
		if got := Clear(p, at); got != want {
			t.Fatalf("%s clear %q, want %q", p, got, want)
		}
	}
	if Clear(None, at) != "" {
		t.Fatal("None clears nothing")
	}
}

func TestParseProtocol(t *testing.T) {
	for _, p := range []Protocol{Kitty, ITerm2, Sixel} {
		got, err := ParseProtocol(strings.ToUpper(p.String()))
		if err != nil || got != p {
			t.Fatalf("%s: %v %v", p, got, err)
		}
	}
	if _, err := ParseProtocol("png"); err == nil || !strings.Contains(err.Error(), "kitty, iterm2 or sixel") {
		t.Fatalf("png: %v", err)
	}
}
