package cli

import (
	"bytes"
	"image"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi/sixel"

	"sandview/tui/termimage/termimagetest"
)

// TestEmailRenderFormat: `email render --format sixel` draws the render
// on the terminal as a sixel image (decoded: the page's two bands), and
// the format is checked: an unknown one and one with -o are usage
// errors.
func TestEmailRenderFormat(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	h.sendRaw(address, []byte(strings.Replace(twoBands, "someone@elsewhere.example", address, 1)))
	id := h.emailBySubject(address, "Two bands").ID
	run := h.must("email", "render", id, "--inbox", address, "--format", "sixel", "--width", "375", "--height", "600")
	out := run.stdout
	start, end := strings.Index(out, "\x1bP0;0q"), strings.Index(out, "\x1b\\")
	if start != 0 || end < start || !strings.HasSuffix(out, "\x1b\\\n") {
		t.Fatalf("not a sixel image and a line break: %.40q…", out)
	}
	var data bytes.Buffer
	for i := start + len("\x1bP0;0q"); i < end; i++ { // x/ansi's decoder drops what follows a repeat: write them out
		if out[i] != '!' {
			data.WriteByte(out[i])
			continue
		}
		n, j := 0, i+1
		for ; out[j] >= '0' && out[j] <= '9'; j++ {
			n = n*10 + int(out[j]-'0')
		}
		data.Write(bytes.Repeat([]byte{out[j]}, n))
		i = j
	}
	img, err := (&sixel.Decoder{}).Decode(&data)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 375 || img.Bounds().Dy() != 600 {
		t.Fatalf("picture %v, want 375x600", img.Bounds())
	}
	red := termimagetest.SolidBox(toRGBA(img), func(r, g, b uint8) bool { return r > 150 && g < 90 && b < 90 })
	green := termimagetest.SolidBox(toRGBA(img), func(r, g, b uint8) bool { return r < 90 && g > 120 && b < 100 })
	if red.Min.Y > 1 || red.Dy() < 296 || red.Dy() > 304 || green.Min.Y < red.Max.Y-2 || green.Dy() < 296 {
		t.Fatalf("bands red %v, green %v: want 300 px each", red, green)
	}
	for _, bad := range [][]string{{"--format", "png"}, {"--format", "kitty", "-o", "x.png"}} {
		r := h.run(append([]string{"email", "render", id, "--inbox", address}, bad...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "--format") && !strings.Contains(r.stderr, "exclude") {
			t.Fatalf("%v: exit %d, %q", bad, r.code, r.stderr)
		}
	}
}

func toRGBA(img image.Image) *image.RGBA {
	m := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			m.Set(x, y, img.At(x, y))
		}
	}
	return m
}
