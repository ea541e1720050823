package termimagetest

import (
	"bufio"
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

// Screenshot is the X screen of display (xwd -root).
func Screenshot(t testing.TB, display string) *image.RGBA {
	t.Helper()
	out, err := exec.Command("xwd", "-root", "-silent", "-display", display).Output()
	if err != nil {
		t.Fatalf("xwd (apt-get install x11-apps): %v", err)
	}
	m, err := DecodeXWD(out)
	if err != nil {
		t.Fatal(err)
	}
	return m
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

// Keys presses keys (xdotool names) in the X window.
func Keys(t testing.TB, display, window string, names ...string) {
	t.Helper()
	cmd := exec.Command("xdotool", append([]string{"key", "--window", window}, names...)...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v (apt-get install xdotool): %v %s", names, err, out)
	}
}

// Window is the id of a visible X window of class, "" while there is none.
func Window(display, class string) string {
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--class", class)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.Split(string(out), "\n")[0])
}

// XtermArgs are the options of an xterm in sixel mode (a VT340 with 1024
// colour registers) that answers window reports (CSI 16 t), on display.
func XtermArgs(display string) []string {
	return []string{"-display", display, "-ti", "vt340", "-geometry", "120x45+0+0",
		"-xrm", "XTerm*numColorRegisters: 1024", "-xrm", "XTerm*allowWindowOps: true",
		"-xrm", "XTerm*disallowedWindowOps: 20,21,SetXprop,SetSelection", "-xrm", "XTerm*allowSendEvents: true"}
}
