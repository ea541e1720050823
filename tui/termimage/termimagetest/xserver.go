package termimagetest

import (
	"bufio"
	"fmt"
	"image"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// XServer starts an Xvfb of a display of its own (800x600, 24 bits) and
// returns the display (":N"); it is stopped when the test ends.
func XServer(t testing.TB) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "800x600x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatalf("Xvfb (apt-get install xvfb): %v", err)
	}
	w.Close()
	t.Cleanup(func() { _ = x.Process.Kill(); _ = x.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb said no display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// screenshot is the X screen of display (xwd -root).
func screenshot(display string) (*image.RGBA, error) {
	out, err := exec.Command("xwd", "-root", "-silent", "-display", display).Output()
	if err != nil {
		return nil, fmt.Errorf("xwd (apt-get install x11-apps): %w", err)
	}
	return DecodeXWD(out)
}

// SolidBox is the bounding box of the rows of m with a run of at least
// 100 pixels that are like (a picture's band; text has no such runs).
func SolidBox(m *image.RGBA, like func(r, g, b uint8) bool) image.Rectangle {
	var box image.Rectangle
	for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
		run := 0
		for x := m.Rect.Min.X; x < m.Rect.Max.X; x++ {
			if c := m.RGBAAt(x, y); like(c.R, c.G, c.B) {
				run++
				if run >= 100 {
					box = box.Union(image.Rect(x-run+1, y, x+1, y+1))
				}
			} else {
				run = 0
			}
		}
	}
	return box
}
