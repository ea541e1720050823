package tui

import (
	"context"
	"flag"
	"fmt"
	"image"
	"net/smtp"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/internal/termimage"
	"sandview/internal/termimage/termimagetest"
	"sandview/server/servertest"
)

// xtermChild makes this test binary the program TestXtermSixel runs in
// its xterm: URL,KEY,SMTP of the test's server.
var xtermChild = flag.String("xterm-child", "", "internal: run the TUI on this terminal against the server URL,KEY,SMTP (TestXtermSixel's child)")

// TestXtermChild is the program in TestXtermSixel's xterm: it makes an
// inbox, mails it an HTML mail and runs the TUI on its terminal with a
// renderer of stripes. Run alone, it does nothing.
func TestXtermChild(t *testing.T) {
	if *xtermChild == "" {
		return
	}
	parts := strings.Split(*xtermChild, ",")
	if len(parts) != 3 {
		t.Fatalf("-xterm-child %q: want URL,KEY,SMTP", *xtermChild)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := client.New(parts[0], parts[1])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	inbox, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("From: sender@example.com\r\nTo: %s\r\nSubject: Stripes\r\nContent-Type: text/html\r\n\r\n<p>Stripes</p>\r\n", inbox.Address())
	if err := smtp.SendMail(parts[2], nil, "sender@example.com", []string{inbox.Address()}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	dark := true
	set := &Settings{ServerLabel: "xterm", DarkTheme: &dark, Terminal: termimage.Hints{Term: "xterm", Ask: true}, Renderer: stripes{}}
	if err := Run(ctx, Config{Client: c, Settings: set}); err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
}

// red is the stripes' red band.
func red(r, g, b uint8) bool { return r > 150 && g < 90 && b < 90 }

// TestXtermSixel: a real terminal shows the picture. xterm in sixel mode
// (-ti vt340, 1024 colour registers, window reports allowed) under Xvfb
// runs the TUI; keys open the mail and its Rendered tab; a screenshot of
// the screen holds the render, scaled to the reader (the cell size from
// xterm's answer to CSI 16 t), under a loose tolerance; back on the Body
// tab the picture's pixels are gone.
func TestXtermSixel(t *testing.T) {
	srv := servertest.Start(t)
	display := termimagetest.XServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	term := exec.CommandContext(ctx, "xterm", append(termimagetest.XtermArgs(display),
		"-e", os.Args[0], "-test.run=^TestXtermChild$", "-xterm-child="+srv.URL()+","+srv.APIKey()+","+srv.SMTPAddr())...)
	if err := term.Start(); err != nil {
		t.Fatalf("xterm (apt-get install xterm): %v", err)
	}
	t.Cleanup(func() { _ = term.Process.Kill(); _ = term.Wait() })
	window := ""
	var box, left image.Rectangle
	poll := func(what string, done func() bool) {
		t.Helper()
		for !done() {
			select {
			case <-ctx.Done():
				t.Fatalf("waiting for %s: %v (red band %v, red left %v)", what, ctx.Err(), box, left)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	poll("the xterm window", func() bool {
		window = termimagetest.Window(display, "xterm")
		return window != ""
	})
	keys := func(names ...string) {
		t.Helper()
		termimagetest.Keys(t, display, window, names...)
	}
	// The mail arrives in the list; tab, enter and 8 until the picture shows.
	var shot *image.RGBA
	tries := 0
	poll("the rendered picture on the screen", func() bool {
		tries++
		if tries%30 == 1 { // every 3 s, from the start: the list may not have the mail yet
			keys("Escape", "Escape", "Tab", "Return", "8")
		}
		shot = termimagetest.Screenshot(t, display)
		return termimagetest.SolidBox(shot, red).Dx() > 100
	})
	box = termimagetest.SolidBox(shot, red)
	want := termimage.Scale(stripesPicture(600), box.Dx())
	h := min(want.Bounds().Dy()/2, shot.Rect.Max.Y-box.Min.Y) // the red and green bands
	got := shot.SubImage(image.Rect(box.Min.X, box.Min.Y, box.Max.X, box.Min.Y+h))
	d := termimagetest.Diff(got, want.SubImage(image.Rect(0, 0, box.Dx(), h)))
	if d.Mean < 0 || d.Mean > 20 || d.Wrong > 0.05 {
		t.Fatalf("the screen's picture (%v) differs from the render: %+v", got.Bounds(), d)
	}
	if box.Dy() < want.Bounds().Dy()/4-16 {
		t.Fatalf("red band %v: want about %d px tall", box, want.Bounds().Dy()/4)
	}
	// Back on the Body tab no pixel of the picture is left where it was.
	keys("1")
	poll("the picture erased", func() bool {
		left = termimagetest.SolidBox(termimagetest.Screenshot(t, display).SubImage(box).(*image.RGBA), red)
		return left.Empty()
	})
}
