package ui

import (
	"fmt"
	"slices"
	"time"

	"sandview/model"
)

// LogSize is how many status messages the log keeps.
const LogSize = 100

// LogEntry is one status message or error, as it was shown.
type LogEntry struct {
	At    time.Time
	Text  string
	Level Level
}

// LogEntries returns the log, oldest first.
func (c *Context) LogEntries() []LogEntry { return slices.Clone(c.log) }

// NewLogDialog shows the log, newest first, each message with its time
// and level.
func NewLogDialog(c *Context) *TextDialog {
	entries := c.LogEntries()
	title := fmt.Sprintf("Messages and errors (last %d)", LogSize)
	return NewTextDialog(c, title, func(width int) []string {
		st := c.Styles()
		if len(entries) == 0 {
			return []string{st.Muted.Render("Nothing yet.")}
		}
		var lines []string
		for i := len(entries) - 1; i >= 0; i-- {
			e := entries[i]
			mark, style := "·", st.Value
			switch e.Level {
			case LevelSuccess:
				mark, style = "✓", st.AuthPass
			case LevelWarn:
				mark, style = "!", st.AuthWarn
			case LevelError:
				mark, style = "✗", st.AuthFail
			}
			head := st.Muted.Render(e.At.In(c.Now.Location()).Format("15:04:05")) + " " + style.Render(mark) + " "
			for j, l := range WrapHanging(e.Text, width-11, width-11) {
				if j == 0 {
					lines = append(lines, head+st.Value.Render(l))
				} else {
					lines = append(lines, "           "+st.Value.Render(l))
				}
			}
		}
		return lines
	})
}

// Plural is "1 email", "3 emails": n and the word in the form it takes.
func Plural(n int, one, many string) string { return model.Plural(n, one, many) }
