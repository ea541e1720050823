package tui

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi/sixel"

	"sandview/client/smtpsend"
	"sandview/model"
	"sandview/tui/termimage"
	"sandview/tui/termimage/termimagetest"
	"sandview/tui/ui"
)

// stripes renders every mail as a picture width px wide of four
// coloured bands.
type stripes struct{}

func (stripes) RenderHTML(_ context.Context, _ model.Email, width int, _ bool) ([]byte, string, error) {
	var b bytes.Buffer
	err := png.Encode(&b, stripesPicture(width))
	return b.Bytes(), "", err
}

func stripesPicture(width int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, width, width))
	bands := []color.RGBA{{200, 30, 30, 255}, {30, 160, 60, 255}, {30, 60, 200, 255}, {240, 240, 240, 255}}
	for y := range width {
		for x := range width {
			m.SetRGBA(x, y, bands[4*y/width])
		}
	}
	return m
}

// TestRemoteProgramDrawsSixel: the real program on a remote terminal (an
// SSH session's streams) asks the terminal, takes its answers (sixel in
// DA1, 8x16 cells), draws the Rendered tab's picture as sixel into that
// terminal's output only, and erases it when another tab is shown.
func TestRemoteProgramDrawsSixel(t *testing.T) {
	srv, c, inbox := serverWithInbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	body := fmt.Sprintf("From: sender@example.com\r\nTo: %s\r\nSubject: Rendered\r\nContent-Type: text/html\r\n\r\n<p>Stripes</p>\r\n", inbox.Address())
	if err := smtpsend.Send(context.Background(), srv.SMTPAddr(), "sender@example.com", []string{inbox.Address()}, []byte(body)); err != nil {
		t.Fatal(err)
	}
	dark := true
	set := &Settings{ServerLabel: "test", DarkTheme: &dark, Terminal: termimage.Hints{Term: "xterm", Ask: true}, Renderer: stripes{}}
	set.Confine(&ui.Remote{Fetch: "scp -P 2222 box.example:", Shell: "ssh -p 2222 box.example"})
	in, keys := io.Pipe()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- RunRemote(ctx, Config{Client: c, Settings: set}, Terminal{In: in, Out: out, Width: 120, Height: 40, Profile: colorprofile.TrueColor})
	}()
	waitFor := func(what, text string) {
		t.Helper()
		for !strings.Contains(out.String(), text) {
			select {
			case <-ctx.Done():
				t.Fatalf("no %s on the terminal", what)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	write := func(s string) {
		t.Helper()
		if _, err := keys.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor("kitty graphics query", "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\")
	waitFor("DA1 query", "\x1b[c")
	write("\x1b[6;16;8t\x1b[?63;1;2;4;6;9;15;22c") // xterm -ti vt340's answers
	waitFor("mail", "Rendered")
	write("\t\r")
	waitFor("reader", "Stripes")
	write("8")
	waitFor("sixel picture", "\x1bP0;0q")
	s := out.String()
	seq := s[strings.Index(s, "\x1bP0;0q"):]
	seq = seq[:strings.Index(seq, "\x1b\\")+2]
	// Placed: the cursor saved, moved into the reader, restored after.
	before := s[:strings.Index(s, "\x1bP0;0q")]
	if !strings.Contains(before[max(len(before)-16, 0):], "\x1b7\x1b[") {
		t.Fatalf("the picture is not placed with the cursor saved: %q", before[max(len(before)-16, 0):])
	}
	img, err := (&sixel.Decoder{}).Decode(strings.NewReader(expandSixelRepeats(seq[len("\x1bP0;0q") : len(seq)-2])))
	if err != nil {
		t.Fatal(err)
	}
	// 600 px wide in a reader of 58 cells of 8 px: scaled to 464 px.
	want := termimage.Scale(stripesPicture(600), img.Bounds().Dx())
	want = want.SubImage(image.Rect(0, 0, want.Bounds().Dx(), img.Bounds().Dy())).(*image.RGBA)
	if img.Bounds().Dx() > 60*8 || img.Bounds().Dx() < 40*8 {
		t.Fatalf("picture %v: not fitted to the reader's cells", img.Bounds())
	}
	if d := termimagetest.Diff(img, want); d.Mean < 0 || d.Mean > 3 || d.Wrong > 0.01 {
		t.Fatalf("the drawn picture differs from the render: %+v", d)
	}
	mark := len(out.String())
	write("1")
	for !strings.Contains(out.String()[mark:], strings.Repeat(" ", 40)+"\x1b[") {
		select {
		case <-ctx.Done():
			t.Fatalf("the picture was not erased: %q", out.String()[mark:])
		case <-time.After(20 * time.Millisecond):
		}
	}
	stopProgram(t, cancel, done)
}

// expandSixelRepeats writes each repeat (!n c) out: x/ansi's decoder
// (v0.11.9) drops the sixel characters that follow a repeat.
func expandSixelRepeats(data string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(data, '!')
		if i < 0 {
			b.WriteString(data)
			return b.String()
		}
		b.WriteString(data[:i])
		j := i + 1
		n := 0
		for j < len(data) && data[j] >= '0' && data[j] <= '9' {
			n = n*10 + int(data[j]-'0')
			j++
		}
		if j < len(data) {
			b.WriteString(strings.Repeat(data[j:j+1], n))
			j++
		}
		data = data[j:]
	}
}
