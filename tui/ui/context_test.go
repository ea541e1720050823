package ui_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

func TestDialogStack(t *testing.T) {
	ctx := tuitest.Context(true)
	answered := false
	confirm := ui.NewConfirm(ctx, "Delete?", func() tea.Cmd { answered = true; return nil })
	help := ui.NewHelpDialog(ctx, "Keys", ctx.Keys.Groups())
	ctx.Open(confirm)
	ctx.Open(help)
	if ctx.Dialog() != help {
		t.Fatal("the last dialog opened is not on top")
	}
	if _, ok := ctx.HandleDialogKey(tuitest.Key("y")); !ok || ctx.Dialog() != confirm || answered {
		t.Fatal("a key did not close the help on top first")
	}
	ctx.HandleDialogKey(tuitest.Key("y"))
	if !answered || ctx.Dialog() != nil {
		t.Fatal("y did not answer the confirmation")
	}
	if _, ok := ctx.HandleDialogKey(tuitest.Key("y")); ok {
		t.Fatal("a key went to a closed dialog")
	}
}

func TestPromptKeepsWhatWasTypedOnError(t *testing.T) {
	ctx := tuitest.Context(true)
	var got string
	p := ui.NewPrompt(ctx, "Save", "Where?", "/tmp", func(v string) tea.Cmd {
		got = v
		return func() tea.Msg { return ui.PromptDoneMsg{Err: errors.New("disk full")} }
	})
	ctx.Open(p)
	d := tuitest.Driver{T: t, Update: func(msg tea.Msg) tea.Cmd {
		if k, ok := msg.(tea.KeyPressMsg); ok {
			cmd, _ := ctx.HandleDialogKey(k)
			return cmd
		}
		ctx.Update(msg)
		return nil
	}}
	d.Type("/x")
	d.Press("enter")
	if got != "/tmp/x" || ctx.Dialog() != p || p.Value() != "/tmp/x" || p.Err() != "disk full" {
		t.Fatalf("accepted %q; prompt open %v, value %q, error %q", got, ctx.Dialog() == p, p.Value(), p.Err())
	}
	if !strings.Contains(tuitest.Plain(p.View(60, 20)), "✗ disk full") {
		t.Fatal("the error is not shown")
	}
	ctx.Update(ui.PromptDoneMsg{Status: "saved"})
	if ctx.Dialog() != nil || ctx.Status().Text != "saved" {
		t.Fatal("success did not close the prompt and say so")
	}
}

func TestStatusExpires(t *testing.T) {
	ctx := tuitest.Context(true)
	now := tuitest.Now()
	ctx.Clock = func() time.Time { return now }
	ctx.Flash("saved \x1b[2Jx", ui.LevelSuccess)
	if ctx.Status().Text != "saved x" {
		t.Fatalf("status not sanitized: %q", ctx.Status().Text)
	}
	ctx.Flash("broken", ui.LevelError)
	now = now.Add(ui.StatusTTL)
	ctx.Advance()
	if ctx.Status().Text != "broken" {
		t.Fatal("an error went away as fast as other messages")
	}
	now = now.Add(ui.StatusTTL)
	ctx.Advance()
	if ctx.Status().Text != "" || !ctx.Now.Equal(now) {
		t.Fatal("the status did not expire")
	}
}

func TestFrameAndPlaceKeepTheSize(t *testing.T) {
	ctx := tuitest.Context(false)
	for _, size := range [][2]int{{4, 2}, {20, 5}, {3, 1}} {
		view := ui.Frame(ctx, "A long title that does not fit", true, size[0], size[1], []string{"x", strings.Repeat("y", 40)})
		tuitest.RequireSize(t, view, size[0], size[1])
	}
	screen := ui.Blank(30, 6)
	placed := ui.Place(screen, ui.Box(ctx, []string{"hi"}, 10), 5, 1)
	tuitest.RequireSize(t, placed, 30, 6)
	if !strings.Contains(tuitest.Plain(placed), "│ hi     │") {
		t.Fatalf("box not placed:\n%s", tuitest.Plain(placed))
	}
}
