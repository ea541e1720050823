package tui

import (
	"context"
	"fmt"
	"image"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client/smtpsend"
	"sandview/tui/termimage"
	"sandview/tui/termimage/termimagetest"
)

// red is the stripes' red band.
func red(r, g, b uint8) bool { return r > 150 && g < 90 && b < 90 }

// TestXtermSixel: a real terminal shows the picture. xterm in sixel mode
// (-ti vt340, 1024 colour registers, window reports allowed) under Xvfb
// is the terminal of the TUI, run here as the local command runs it, on
// the pseudo-terminal xterm serves; keys pressed in the X window open the
// mail and its Rendered tab; a screenshot of the screen holds the render,
// scaled to the reader (the cell size from xterm's answer to CSI 16 t),
// under a loose tolerance; back on the Body tab the picture's pixels are
// gone.
func TestXtermSixel(t *testing.T) {
	srv, c, inbox := serverWithInbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	body := fmt.Sprintf("From: sender@example.com\r\nTo: %s\r\nSubject: Stripes\r\nContent-Type: text/html\r\n\r\n<p>Stripes</p>\r\n", inbox.Address())
	if err := smtpsend.Send(ctx, srv.SMTPAddr(), "sender@example.com", []string{inbox.Address()}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	x := termimagetest.StartXterm(t, ctx)
	dark := true
	set := &Settings{ServerLabel: "xterm", DarkTheme: &dark, Terminal: termimage.Hints{Term: "xterm", Ask: true}, Renderer: stripes{}}
	// The TUI reads the terminal through a plain reader (x.Input):
	// bubbletea's reader of a terminal file (epoll) closes its pipe while
	// its goroutine may still wait on it, which the race detector reports.
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- Run(runCtx, Config{Client: c, Settings: set},
			tea.WithInput(x.Input()), tea.WithOutput(x.TTY), tea.WithEnvironment([]string{"TERM=xterm"}))
	}()
	t.Cleanup(func() { stop(); <-done })
	var box, left image.Rectangle
	poll := func(what string, ok func() bool) {
		t.Helper()
		x.Poll(what, func() bool {
			select {
			case err := <-done:
				t.Fatalf("the TUI ended while waiting for %s: %v (red band %v, red left %v)", what, err, box, left)
			default:
			}
			return ok()
		})
	}
	// The mail is in the list: esc, enter and 8 until the picture shows.
	var shot *image.RGBA
	tries := 0
	poll("the rendered picture on the screen", func() bool {
		tries++
		if tries%30 == 1 { // every 3 s, from the start: the list may not have the mail yet
			x.Keys("Escape", "Return", "8")
		}
		shot = x.Screenshot()
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
	x.Keys("1")
	poll("the picture erased", func() bool {
		left = termimagetest.SolidBox(x.Screenshot().SubImage(box).(*image.RGBA), red)
		return left.Empty()
	})
}
