package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"sandview/client/smtpsend"
)

// TestSSHEmailRenderWritesToTheSession: over SSH `email render` renders
// with the box's browser and writes the PNG to the session's standard
// output; a file on the box is refused (and not written), and another
// user cannot render the mail.
func TestSSHEmailRenderWritesToTheSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	alice, bob := newUserKey(t, "alice"), newUserKey(t, "bob")
	b := startSSHBox(t, ctx, alice.line+"\n"+bob.line+"\n")
	if _, errOut, code := b.run(alice.signer, "inbox create --address alice-render@sandbox.test --plain --json"); code != 0 {
		t.Fatalf("inbox create: exit %d: %s", code, errOut)
	}
	msg := "From: app@example.org\r\nTo: alice-render@sandbox.test\r\nSubject: rendered\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: text/html; charset=utf-8\r\n\r\n<body style=\"margin:0;background:rgb(30,60,200)\"><div style=\"height:200px\">hi</div></body>\r\n"
	if err := smtpsend.Send(context.Background(), b.smtpAddr, "app@example.org", []string{"alice-render@sandbox.test"}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := b.run(alice.signer, "wait --inbox alice-render@sandbox.test --subject rendered --timeout 30s --json")
	if code != 0 {
		t.Fatalf("wait: exit %d: %s", code, errOut)
	}
	var got []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 {
		t.Fatalf("wait printed %q (%v)", out, err)
	}
	id := got[0].ID

	out, errOut, code = b.run(alice.signer, "email render "+id+" --inbox alice-render@sandbox.test -o - --width 375")
	if code != 0 {
		t.Fatalf("email render -o -: exit %d: %s", code, errOut)
	}
	img, err := png.Decode(bytes.NewReader([]byte(out)))
	if err != nil {
		t.Fatalf("the session's output is not a PNG: %v (stderr %q)", err, errOut)
	}
	if w := img.Bounds().Dx(); w != 375 {
		t.Errorf("width %d, want 375", w)
	}
	if r, g, bl, _ := img.At(200, 100).RGBA(); r>>8 != 30 || g>>8 != 60 || bl>>8 != 200 {
		t.Errorf("pixel (200,100) %d,%d,%d: not the mail's background", r>>8, g>>8, bl>>8)
	}

	onBox := filepath.Join(t.TempDir(), "x.png")
	if _, errOut, code := b.run(alice.signer, "email render "+id+" --inbox alice-render@sandbox.test -o "+onBox); code != exitUsage || !strings.Contains(errOut, "--output writes to standard output") {
		t.Errorf("-o FILE over SSH: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(onBox); !os.IsNotExist(err) {
		t.Errorf("a file was written on the box: %v", err)
	}
	// ssh -t: standard output is the user's terminal, which gets no PNG.
	c, err := b.dial(alice.signer)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	var tty, ttyErr bytes.Buffer
	s.Stdout, s.Stderr = &tty, &ttyErr
	var exit *gossh.ExitError
	err = s.Run("email render " + id + " --inbox alice-render@sandbox.test -o -")
	shown := tty.String() + ttyErr.String()
	if !errors.As(err, &exit) || exit.ExitStatus() != exitUsage || !strings.Contains(shown, "would write the PNG to the terminal") || strings.Contains(shown, "PNG\r\n") {
		t.Errorf("-o - to a terminal: %v, %q", err, shown)
	}

	if out, _, code := b.run(bob.signer, "email render "+id+" --inbox alice-render@sandbox.test -o -"); code == 0 || len(out) != 0 {
		t.Errorf("bob rendered alice's mail: exit %d, %d bytes", code, len(out))
	}
}
