package htmlrender

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden PNGs under testdata")

// shared is the renderer most tests share, as the sessions of a box do.
var shared *Renderer

func TestMain(m *testing.M) {
	flag.Parse()
	shared = New(testConfig())
	code := m.Run()
	if err := shared.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// testConfig finds the machine's Chromium (.ci/run installs Debian's);
// without one the tests fail with ErrNoBrowser, they do not skip.
func testConfig() Config {
	return Config{BrowserPath: FindBrowser(exec.LookPath), NoSandbox: os.Geteuid() == 0, Timeout: 10 * time.Second}
}

// newsletter is the fixture mail: a table layout, a cid: logo, a
// narrow-screen and a dark style.
func newsletter(t testing.TB) Input {
	t.Helper()
	html, err := os.ReadFile(filepath.Join("testdata", "newsletter.html"))
	if err != nil {
		t.Fatal(err)
	}
	logo, err := os.ReadFile(filepath.Join("testdata", "logo.png"))
	if err != nil {
		t.Fatal(err)
	}
	return Input{HTML: string(html), Inline: map[string]Part{"logo@sandview.test": {ContentType: "image/png", Content: logo}}}
}

// render renders in with r and fails the test on an error.
func render(t testing.TB, r *Renderer, in Input, opt Options) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := r.Render(ctx, in, opt)
	if err != nil {
		t.Fatalf("render %+v: %v", opt, err)
	}
	return res
}

// decode reads a PNG.
func decode(t testing.TB, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode the PNG: %v", err)
	}
	return img
}

// Golden tolerance: a pixel differs when a channel is off by more than
// pixelTolerance (of 255), and pictures match when under maxDiffering of
// their pixels differ: font hinting and anti-aliasing move a few edge
// pixels a little, a layout change moves whole blocks.
const (
	pixelTolerance = 40
	maxDiffering   = 0.01
)

// compare says why got does not match want ("" when it does).
func compare(got, want image.Image) string {
	if got.Bounds() != want.Bounds() {
		return fmt.Sprintf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
	}
	b := got.Bounds()
	differing := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if pixelDiffers(got.At(x, y), want.At(x, y)) {
				differing++
			}
		}
	}
	if frac := float64(differing) / float64(b.Dx()*b.Dy()); frac > maxDiffering {
		return fmt.Sprintf("%d pixels (%.2f%%) differ by more than %d, at most %.0f%% may", differing, 100*frac, pixelTolerance, 100*maxDiffering)
	}
	return ""
}

func pixelDiffers(a, b interface{ RGBA() (r, g, b, a uint32) }) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	for _, d := range []int{int(ar>>8) - int(br>>8), int(ag>>8) - int(bg>>8), int(ab>>8) - int(bb>>8)} {
		if d > pixelTolerance || d < -pixelTolerance {
			return true
		}
	}
	return false
}

// countColor counts the pixels of img close to (r, g, b).
func countColor(img image.Image, r, g, b uint8) int {
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near(cr>>8, r) && near(cg>>8, g) && near(cb>>8, b) {
				n++
			}
		}
	}
	return n
}

func near(c uint32, want uint8) bool { d := int(c) - int(want); return d >= -8 && d <= 8 }
