package mail

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/desktop"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// remoteHarness is the mail screen in a remote session's profile (an SSH
// user's), on settings that a hostile client's environment would have
// filled in: a shell, a home, a temporary folder. Every program it would
// start is recorded (the harness's opener records "open …"; ran records
// the runner's calls).
func remoteHarness(t *testing.T) (*harness, *[]string, string) {
	t.Helper()
	home := t.TempDir()
	set := ui.Settings{Shell: "/bin/sh", UserHome: home, TempDir: t.TempDir(), InTmux: true}
	set.Confine(&ui.Remote{Fetch: "scp -P 2222 box:", Shell: "ssh -p 2222 box", AttachmentNames: func(as []model.Attachment) []string {
		names := make([]string, len(as))
		for i, a := range as {
			names[i] = desktop.SafeName(a.Name(), "attachment")
		}
		return names
	}})
	if set.Shell != "" || set.UserHome != "" || set.TempDir != "" || set.InTmux {
		t.Fatalf("Confine kept a setting of the client: %+v", set)
	}
	var ran []string
	set.Run = func(_ context.Context, _ []byte, name string, args ...string) ([]byte, error) {
		ran = append(ran, name+" "+strings.Join(args, " "))
		return nil, ui.ErrRemote
	}
	h := newHarnessWith(t, 140, 37, set)
	return h, &ran, home
}

// TestRemoteKeysRunNothingOnTheBox: over SSH, |, v, o, s, S, e and i start
// no program and write no file where the TUI runs; each copies (OSC 52)
// and shows the command to run on the user's own machine instead.
func TestRemoteKeysRunNothingOnTheBox(t *testing.T) {
	h, ran, home := remoteHarness(t)
	h.Press("enter")
	id := "e1"
	eml := "scp -P 2222 box:demo@sandbox.test/" + id + ".eml ."
	steps := []struct {
		keys      []string
		clipboard string
	}{
		{[]string{"|"}, eml},
		{[]string{"v"}, eml},
		{[]string{"s"}, eml},
		{[]string{"S"}, "scp -r -P 2222 box:demo@sandbox.test/" + id + " ."},
		{[]string{"3", "o"}, "https://example.com/welcome"},
		{[]string{"4", "o"}, "scp -P 2222 box:demo@sandbox.test/" + id + "/report.pdf ."},
		{[]string{"4", "s"}, "scp -P 2222 box:demo@sandbox.test/" + id + "/report.pdf ."},
		{[]string{"e"}, "ssh -p 2222 box inbox export demo@sandbox.test > demo@sandbox.test.json"},
		{[]string{"i"}, "ssh -p 2222 box inbox import - < inbox.json"},
	}
	for _, step := range steps {
		msgs := h.Press(step.keys...)
		if !tuitest.Contains(msgs, step.clipboard) {
			t.Errorf("%v copied nothing like %q: %v\n%s", step.keys, step.clipboard, msgs, h.shown())
		}
		switch d := h.ctx.Dialog().(type) {
		case nil: // a link: copied, said in the status line
			if !strings.Contains(h.shown(), "copied the link") {
				t.Errorf("%v says nothing:\n%s", step.keys, h.shown())
			}
		case *ui.TextDialog:
			if shown := tuitest.Plain(d.View(120, 20)); !strings.Contains(shown, step.clipboard) || !strings.Contains(shown, "Over SSH nothing is run") {
				t.Errorf("%v shows:\n%s", step.keys, shown)
			}
			h.Press("esc")
		default:
			t.Fatalf("%v opened a dialog that acts on the box: %T\n%s", step.keys, d, h.shown())
		}
	}
	if got := h.svc.Calls(); strings.Contains(strings.Join(got, "\n"), "open ") {
		t.Errorf("a program was asked to open something: %v", got)
	}
	if len(*ran) > 0 {
		t.Errorf("programs ran on the box: %v", *ran)
	}
	for _, dir := range []string{home, h.s.set.TempDir} {
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("%s holds files: %v", dir, entries)
		}
	}
}

// TestRemoteRefusesFilesOnTheBox: a save, export or import that reaches
// the commands anyway (the last wall) is refused, nothing written.
func TestRemoteRefusesFilesOnTheBox(t *testing.T) {
	h, _, home := remoteHarness(t)
	e := tuitest.Emails()[0]
	for name, cmd := range map[string]tea.Cmd{
		"save attachment": h.s.cmds.saveAttachment(e.Attachments[0], home),
		"export":          h.s.cmds.exportInbox(tuitest.DemoAddr, home+"/x.json"),
		"save emails":     h.s.cmds.saveEmails([]emailRef{{tuitest.DemoAddr, e.ID}}, []string{"x.eml"}, home),
		"import":          h.s.cmds.importInbox(home + "/x.json"),
	} {
		var err error
		switch msg := cmd().(type) {
		case ui.PromptDoneMsg:
			err = msg.Err
		case inboxAddedMsg:
			err = msg.err
		}
		if !errors.Is(err, ui.ErrRemote) {
			t.Errorf("%s was not refused: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) > 0 {
		t.Errorf("files were written: %v", entries)
	}
}
