package ui_test

import (
	"strings"
	"testing"

	"sandview/keys"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

func TestListPagesByTheSameRule(t *testing.T) {
	for _, rowHeight := range []int{1, 2} {
		l := ui.NewList(rowHeight)
		l.SetLen(100)
		l.SetHeight(10 * rowHeight)
		if l.Rows() != 10 || l.Page() != 9 {
			t.Fatalf("row height %d: %d rows, page %d; want 10 rows, page 9", rowHeight, l.Rows(), l.Page())
		}
		km := keys.Default().ListKeyMap
		for _, step := range []struct {
			key  string
			want int
		}{{"pgdown", 9}, {"pgdown", 18}, {"down", 19}, {"pgup", 10}, {"end", 99}, {"home", 0}, {"up", 0}} {
			l.HandleKey(km, tuitest.Key(step.key))
			if l.Cursor() != step.want {
				t.Fatalf("row height %d: %s put the cursor on %d, want %d", rowHeight, step.key, l.Cursor(), step.want)
			}
		}
	}
}

func TestListKeepsTheCursorInView(t *testing.T) {
	l := ui.NewList(2)
	l.SetLen(20)
	l.SetHeight(6) // three rows
	l.Select(10)
	var drawn []int
	l.Render(func(i int, _ bool) []string {
		drawn = append(drawn, i)
		return []string{"a", "b"}
	})
	if len(drawn) != 3 || drawn[2] != 10 {
		t.Fatalf("rows drawn %v, want the cursor's row last of three", drawn)
	}
	l.SetHeight(2) // one row
	if l.RowAt(0) != 10 || l.RowAt(1) != 10 || l.RowAt(2) != -1 {
		t.Fatalf("RowAt: %d %d %d", l.RowAt(0), l.RowAt(1), l.RowAt(2))
	}
	l.SetLen(5)
	if l.Cursor() != 4 {
		t.Fatalf("a shorter list left the cursor on %d", l.Cursor())
	}
	l.SetLen(0)
	if l.Cursor() != 0 || l.RowAt(0) != -1 || l.Move(1) {
		t.Fatal("an empty list has a row")
	}
}

func TestListWheelAndInsert(t *testing.T) {
	l := ui.NewList(1)
	l.SetLen(10)
	l.SetHeight(4)
	l.Wheel(ui.WheelLines)
	if l.Cursor() != ui.WheelLines {
		t.Fatalf("one-line rows: the wheel moved to %d", l.Cursor())
	}
	tall := ui.NewList(4)
	tall.SetLen(10)
	tall.SetHeight(8)
	tall.Wheel(-ui.WheelLines)
	tall.Wheel(ui.WheelLines)
	if tall.Cursor() != 1 {
		t.Fatalf("rows taller than a turn: the wheel moved to %d, want one row", tall.Cursor())
	}
	l.InsertFirst()
	if l.Len() != 11 || l.Cursor() != ui.WheelLines+1 {
		t.Fatalf("insert moved the selection: cursor %d of %d", l.Cursor(), l.Len())
	}
	l.Select(0)
	l.InsertFirst()
	if l.Cursor() != 0 {
		t.Fatal("the newest row did not stay selected")
	}
}

func TestTextFieldEditsAndSanitizes(t *testing.T) {
	ctx := tuitest.Context(true)
	f := ui.NewTextField(ctx.Edit, "ab\x1b[2J\u202ec")
	if f.Value() != "abc" {
		t.Fatalf("initial value %q", f.Value())
	}
	for _, k := range []string{"left", "backspace", "x", "end", "y"} {
		f.HandleKey(tuitest.Key(k))
	}
	if f.Value() != "axcy" {
		t.Fatalf("edited value %q", f.Value())
	}
	f.Insert("\x1b]52;c;SGVsbG8=\x07 y\r\n")
	if strings.ContainsAny(f.Value(), "\x1b\x07\r\n") {
		t.Fatalf("paste left controls: %q", f.Value())
	}
	if f.HandleKey(tuitest.Key("ctrl+c")) {
		t.Fatal("a control key was typed")
	}
	for _, focused := range []bool{true, false} {
		for _, w := range []int{1, 5, 30} {
			tuitest.RequireSize(t, f.View(ctx, focused, w), w, 1)
		}
	}
}

func TestChoiceFallsBackToOneOption(t *testing.T) {
	st := tuitest.Context(true).Styles()
	c := ui.Choice{Options: []string{"one", "two", "three"}, Index: 1}
	if all := tuitest.Plain(c.View(st, ui.Verbatim, " ", 40)); all != " one   two   three " {
		t.Fatalf("all options: %q", all)
	}
	if one := tuitest.Plain(c.View(st, ui.Verbatim, "", 10)); one != "◂two▸ 2/3" {
		t.Fatalf("one option: %q", one)
	}
	c.Next(-2)
	if c.Value() != "three" {
		t.Fatalf("Next wraps: %q", c.Value())
	}
}
