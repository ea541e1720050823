package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sandview/client/smtpsend"
)

// TestCLIEmailRender: `email render` writes the HTML part, its cid: logo
// drawn, as a PNG of the asked width to a file or standard output; bad
// flags are usage errors (exit 2); without a browser it fails (exit 1)
// with one line saying how to get one.
func TestCLIEmailRender(t *testing.T) {
	h := newCLI(t)
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	logo, err := os.ReadFile(filepath.Join("..", "htmlrender", "testdata", "logo.png"))
	if err != nil {
		t.Fatal(err)
	}
	msg := "From: a@example.org\r\nTo: " + address + "\r\nSubject: render\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/related; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<body style=\"margin:0\"><img src=\"cid:logo@x.test\" width=\"120\" height=\"40\"><p>Hello</p></body>\r\n" +
		"--b\r\nContent-Type: image/png\r\nContent-ID: <logo@x.test>\r\nContent-Disposition: inline\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		base64.StdEncoding.EncodeToString(logo) + "\r\n--b--\r\n"
	if err := smtpsend.Send(context.Background(), h.srv.SMTPAddr(), "a@example.org", []string{address}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	h.must("wait", "--subject", "^render$", "--timeout", "20s")
	id := decodeJSON[[]emailView](t, h.must("email", "list", "--json"))[0].ID

	out := filepath.Join(t.TempDir(), "mail.png")
	r := h.must("email", "render", id, "-o", out, "--width", "375")
	if !strings.HasPrefix(r.stdout, "wrote "+out+" (375x") {
		t.Errorf("stdout %q", r.stdout)
	}
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 375 {
		t.Errorf("width %d, want 375", w)
	}
	if r, g, b, _ := img.At(20, 20).RGBA(); r>>8 != 255 || g>>8 != 200 || b>>8 != 0 {
		t.Errorf("pixel (20,20) is %d,%d,%d: the cid: logo's yellow is not drawn", r>>8, g>>8, b>>8)
	}

	r = h.must("email", "render", id, "-o", "-", "--width", "1024", "--dark", "--height", "30")
	img, err = png.Decode(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatalf("-o -: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1024 || b.Dy() != 30 {
		t.Errorf("-o - --height 30: %v", b.Size())
	}
	if !strings.Contains(r.stderr, "cut at 30 px") {
		t.Errorf("stderr %q: want the cut noted", r.stderr)
	}

	for _, args := range [][]string{
		{"email", "render", id},
		{"email", "render", id, "-o", out, "--full", "--height", "10"},
		{"email", "render", id, "-o", out, "--width", "20"},
	} {
		if r := h.run(args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, r.code, exitUsage, r.stderr)
		}
	}
	for _, run := range []cliRun{
		h.run("email", "render", id, "-o", out, "--browser", "/nonexistent/chromium"),
		h.withEnv("SANDVIEW_BROWSER=/nonexistent/chromium").run("email", "render", id, "-o", out),
	} {
		if run.code != exitFailure || !strings.Contains(run.stderr, "--browser PATH or SANDVIEW_BROWSER") || strings.Count(run.stderr, "\n") != 1 {
			t.Errorf("no browser: exit %d, %q; want exit 1 and one line saying how to get one", run.code, run.stderr)
		}
	}
}
