package cli

import (
	"context"
	"image"
	"net"
	"net/smtp"
	"os/exec"
	"testing"
	"time"

	"sandview/internal/termimage/termimagetest"
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
// render's, scaled to the reader, with the green one under it); back on
// the Body tab its pixels are gone.
func TestSSHXtermSixel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	alice := newUserKey(t, "alice")
	b := startSSHBox(t, ctx, alice.line+"\n")
	if err := smtp.SendMail(b.smtpAddr, nil, "app@example.org", []string{"someone@elsewhere.example"}, []byte(twoBands)); err != nil {
		t.Fatal(err)
	}
	display := termimagetest.XServer(t)
	host, port, _ := net.SplitHostPort(b.sshAddr)
	ssh := append([]string{"-e", "ssh", "-tt", "-p", port}, opensshArgs(opensshKeyFile(t, alice))...)
	term := exec.CommandContext(ctx, "xterm", append(termimagetest.XtermArgs(display), append(ssh, "tester@"+host)...)...)
	if err := term.Start(); err != nil {
		t.Fatalf("xterm (apt-get install xterm): %v", err)
	}
	t.Cleanup(func() { _ = term.Process.Kill(); _ = term.Wait() })
	poll := func(what string, done func() bool) {
		t.Helper()
		for !done() {
			select {
			case <-ctx.Done():
				t.Fatalf("waiting for %s: %v", what, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	window := ""
	poll("the xterm window", func() bool {
		window = termimagetest.Window(display, "xterm")
		return window != ""
	})
	red := func(r, g, b uint8) bool { return r > 150 && g < 90 && b < 90 }
	green := func(r, g, b uint8) bool { return r < 90 && g > 120 && b < 100 }
	var shot *image.RGBA
	tries := 0
	poll("the rendered picture on the screen", func() bool {
		if tries%50 == 0 { // every 5 s: the TUI may not show the mail yet
			termimagetest.Keys(t, display, window, "Escape", "Return", "8")
		}
		tries++
		shot = termimagetest.Screenshot(t, display)
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
	termimagetest.Keys(t, display, window, "1")
	poll("the picture erased", func() bool {
		return termimagetest.SolidBox(termimagetest.Screenshot(t, display).SubImage(r).(*image.RGBA), red).Empty()
	})
}
