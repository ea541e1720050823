package cli

import (
	"context"
	"image"
	"net"
	"testing"
	"time"

	"sandview/client/smtpsend"
	"sandview/tui/termimage/termimagetest"
)

// twoBands is a mail whose page is a red band over a green one, 300 px
// each (at any width), on white.
const twoBands = "From: app@example.org\r\nTo: someone@elsewhere.example\r\nSubject: Two bands\r\nContent-Type: text/html\r\n\r\n" +
	"<html><body style=\"margin:0;background:#fff\"><div style=\"height:300px;background:#c81e1e\"></div>" +
	"<div style=\"height:300px;background:#1ea03c\"></div></body></html>\r\n"

// TestSSHXtermSixel: the same as tui's TestXtermSixel through a real
// OpenSSH session into `serve --ssh`: xterm in sixel mode under Xvfb runs
// ssh, the box's Chromium renders the mail, the picture travels in the
// session and the screenshot holds it (the red band as tall as the
// render's, scaled to the reader, with the green one under it); the
// window made narrower (the reader then spans the window: a layout of
// one column), the picture is cleared and drawn again fitted to the new
// reader's width, inside the window, no pixel of the old one left
// outside it; back on the Body tab its pixels are gone.
func TestSSHXtermSixel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	alice := newUserKey(t, "alice")
	b := startSSHBox(t, ctx, alice.line+"\n")
	if err := smtpsend.Send(ctx, b.smtpAddr, "app@example.org", []string{"someone@elsewhere.example"}, []byte(twoBands)); err != nil {
		t.Fatal(err)
	}
	x := termimagetest.StartXterm(t, ctx)
	host, port, _ := net.SplitHostPort(b.sshAddr)
	x.Run("ssh", append(append([]string{"-tt", "-p", port}, opensshArgs(opensshKeyFile(t, alice))...), "tester@"+host)...)
	red := func(r, g, b uint8) bool { return r > 150 && g < 90 && b < 90 }
	green := func(r, g, b uint8) bool { return r < 90 && g > 120 && b < 100 }
	var shot *image.RGBA
	tries := 0
	x.Poll("the rendered picture on the screen", func() bool {
		if tries%50 == 0 { // every 5 s: the TUI may not show the mail yet
			x.Keys("Escape", "Return", "8")
		}
		tries++
		shot = x.Screenshot()
		return termimagetest.SolidBox(shot, green).Dx() > 100
	})
	// The red band is the red rows right above the green one (the
	// catch-all banner at the top is red too).
	g := termimagetest.SolidBox(shot, green)
	top := g.Min.Y
	for top > 0 && termimagetest.SolidBox(shot.SubImage(image.Rect(g.Min.X, top-1, g.Max.X, top)).(*image.RGBA), red).Dx() == g.Dx() {
		top--
	}
	r := image.Rect(g.Min.X, top, g.Max.X, g.Min.Y)
	// 600 px scaled to the box's width: the bands are 300 px scaled alike.
	band := 300 * r.Dx() / 600
	switch {
	case r.Dx() < 200 || r.Dx() > 600:
		t.Fatalf("red band %v: not fitted to the reader", r)
	case g.Dy() < band-4:
		t.Fatalf("green band %v: want about %d px tall (or to the pane's bottom)", g, band)
	case r.Dy() < band-4 || r.Dy() > band+4:
		t.Fatalf("red band %v: %d px tall, the render's scaled is %d", r, r.Dy(), band)
	}
	// Made narrower, the window gets the picture cleared and drawn again,
	// fitted to the reader's new width: none of the old picture's pixels
	// is left outside the new one.
	old := r.Union(g)
	cols := termimagetest.Columns * 5 / 6
	x.Resize(cols, termimagetest.Rows)
	// The window was at most the screen's width: now at most its share.
	maxX := 0
	var nr, ng image.Rectangle
	x.Poll("the picture drawn again, fitted to the new width, and nothing of the old one left", func() bool {
		shot = x.Screenshot()
		maxX = shot.Rect.Dx() * cols / termimagetest.Columns
		below := shot.SubImage(image.Rect(0, r.Min.Y, shot.Rect.Dx(), shot.Rect.Dy())).(*image.RGBA) // under the banner
		nr, ng = termimagetest.SolidBox(below, red), termimagetest.SolidBox(below, green)
		refit := nr.Dx() < r.Dx()-8 || nr.Dx() > r.Dx()+8
		return !nr.Empty() && refit && nr.Max.X <= maxX && leftOver(shot, old, nr.Union(ng), red, green) == 0
	})
	if nr.Dx() < 150 {
		t.Fatalf("after the resize: red band %v (before %v): not fitted to the reader", nr, r)
	}
	x.Keys("1")
	x.Poll("the picture erased", func() bool {
		return termimagetest.SolidBox(x.Screenshot().SubImage(nr).(*image.RGBA), red).Empty()
	})
}

// leftOver counts the pixels in old, outside now, that are like one of
// the picture's colours.
func leftOver(m *image.RGBA, old, now image.Rectangle, like ...func(r, g, b uint8) bool) int {
	n := 0
	for y := old.Min.Y; y < old.Max.Y; y++ {
		for x := old.Min.X; x < old.Max.X; x++ {
			if (image.Point{x, y}).In(now) {
				continue
			}
			c := m.RGBAAt(x, y)
			for _, l := range like {
				if l(c.R, c.G, c.B) {
					n++
					break
				}
			}
		}
	}
	return n
}
