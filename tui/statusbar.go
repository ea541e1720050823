package tui

import (
	"fmt"
	"time"

	"sandview/client"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// connKind is the state of the delivery connection.
type connKind int

const (
	connUnknown connKind = iota
	connIdle
	connConnecting
	connLive
	connPolling
	connReconnecting
	connOffline
	connClosed
)

// connState mirrors the client's connection state for the status bar.
type connState struct {
	kind     connKind
	attempt  int
	delay    time.Duration
	interval time.Duration
	err      string
}

// connStateOf translates the client's connection state; polls failing
// for a server-wide reason show as offline.
func connStateOf(st client.ConnState) connState {
	cs := connState{attempt: st.Attempt, delay: st.Delay, interval: st.Interval}
	if st.Err != nil {
		cs.err = ui.ErrorText(st.Err)
	}
	switch st.Kind {
	case client.StateIdle:
		cs.kind = connIdle
	case client.StateConnecting:
		cs.kind = connConnecting
	case client.StateLive:
		cs.kind = connLive
	case client.StateReconnecting:
		cs.kind = connReconnecting
	case client.StatePolling:
		cs.kind = connPolling
		if st.Err != nil {
			cs.kind = connOffline
		}
	case client.StateClosed:
		cs.kind = connClosed
	default:
		cs.kind = connUnknown
	}
	return cs
}

// healthy reports whether mail flows: live, or polling without errors.
func (c connState) healthy() bool { return c.kind == connLive || c.kind == connPolling }

// troubled reports whether mail may be missed: reconnecting or offline.
func (c connState) troubled() bool { return c.kind == connReconnecting || c.kind == connOffline }

// text describes the connection; live and bad say how to colour it.
func (c connState) text() (text string, live, bad bool) {
	switch c.kind {
	case connLive:
		return "● live stream", true, false
	case connPolling:
		return fmt.Sprintf("polling every %s", c.interval.Round(100*time.Millisecond)), false, false
	case connReconnecting:
		text := fmt.Sprintf("reconnecting in %s, attempt %d", c.delay.Round(time.Second), c.attempt)
		if c.err != "" {
			text += ": " + c.err
		}
		return text, false, true
	case connOffline:
		return "offline: " + c.err, false, true
	case connClosed:
		return "closed", false, true
	case connConnecting:
		return "connecting…", false, false
	case connIdle:
		return "no inbox to watch", false, false
	}
	return "not connected", false, false
}

// minMessage is the fewest cells the status message keeps when the
// counts take the rest of the bar.
const minMessage = 24

// totals are the counts the status bar shows.
type totals struct{ emails, unread, inboxes int }

// statusBar draws the one-line bar: the server, the connection, the counts
// and the status message of ctx. When they do not all fit, the server and
// the inbox count go first, then the message is cut (to no less than
// minMessage cells), and the email counts are cut last.
func statusBar(ctx *ui.Context, server string, conn connState, n totals, width int) string {
	st := ctx.Styles()
	text, live, bad := conn.text()
	connStyle := st.StatusBar
	switch {
	case live:
		connStyle = st.StatusLive
	case bad:
		connStyle = st.StatusWarn
	}
	mail := fmt.Sprintf("%s · %d unread ", ui.Plural(n.emails, "email", "emails"), n.unread)
	left := st.StatusBar.Render(" "+server+" │ ") + connStyle.Render(text) +
		st.StatusBar.Render(" │ "+ui.Plural(n.inboxes, "inbox", "inboxes")+" · "+mail)
	status := ctx.Status()
	if status.Text == "" {
		return st.StatusBar.Render(ui.Fit(left, width))
	}
	msgStyle := st.StatusInfo
	switch status.Level {
	case ui.LevelSuccess:
		msgStyle = st.StatusOK
	case ui.LevelWarn:
		msgStyle = st.StatusWarn
	case ui.LevelError:
		msgStyle = st.StatusError
	}
	msg := msgStyle.Render(" " + status.Text + " ")
	lw, mw := termtext.Width(left), termtext.Width(msg)
	if lw+mw > width {
		left = st.StatusBar.Render(" ") + connStyle.Render(text) + st.StatusBar.Render(" │ "+mail)
		lw = termtext.Width(left)
	}
	if lw+mw > width {
		msg = msgStyle.Render(ui.Fit(" "+status.Text+" ", max(width-lw, min(mw, minMessage))))
		mw = termtext.Width(msg)
	}
	if lw+mw > width {
		left = ui.Fit(left, max(width-mw, 0))
		lw = termtext.Width(left)
	}
	gap := max(width-lw-mw, 0)
	return ui.Fit(left+st.StatusBar.Render(ui.Fit("", gap))+msg, width)
}
