package tui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// connKind is the state of the delivery connection.
type connKind int

const (
	connUnknown connKind = iota
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

// statusLevel says how a transient message is shown.
type statusLevel int

const (
	levelInfo statusLevel = iota
	levelSuccess
	levelWarn
	levelError
)

// statusTTL is how long a transient message stays.
const statusTTL = 6 * time.Second

// statusBar shows the server, the connection, counts and the last
// transient message.
type statusBar struct {
	sh      *shared
	server  string
	conn    connState
	text    string
	level   statusLevel
	expires time.Time
	width   int
}

func newStatusBar(sh *shared, server string) *statusBar {
	return &statusBar{sh: sh, server: ansi.Strip(server)}
}

// SetSize sets the width.
func (b *statusBar) SetSize(width int) { b.width = width }

// flash shows a transient message; errors stay twice as long.
func (b *statusBar) flash(text string, level statusLevel) {
	b.text, b.level = text, level
	ttl := statusTTL
	if level == levelError {
		ttl *= 2
	}
	b.expires = b.sh.now.Add(ttl)
}

// expire clears the transient message when its time is up.
func (b *statusBar) expire() {
	if b.text != "" && !b.sh.now.Before(b.expires) {
		b.text = ""
	}
}

// connText describes the connection.
func (b *statusBar) connText() (string, bool, bool) {
	c := b.conn
	switch c.kind {
	case connLive:
		return "● live stream", true, false
	case connPolling:
		return fmt.Sprintf("polling every %s", c.interval.Round(100*time.Millisecond)), false, false
	case connReconnecting:
		return fmt.Sprintf("reconnecting in %s, attempt %d", c.delay.Round(time.Second), c.attempt), false, true
	case connOffline:
		return "offline: " + c.err, false, true
	case connClosed:
		return "closed", false, true
	case connConnecting:
		return "connecting…", false, false
	}
	return "not connected", false, false
}

// View renders the one-line bar.
func (b *statusBar) View(emails, unread, inboxes int) string {
	st := b.sh.styles()
	conn, live, bad := b.connText()
	connStyle := st.StatusBar
	switch {
	case live:
		connStyle = st.StatusLive
	case bad:
		connStyle = st.StatusWarn
	}
	left := st.StatusBar.Render(" "+b.server+" │ ") + connStyle.Render(conn) +
		st.StatusBar.Render(fmt.Sprintf(" │ %d inboxes · %d emails · %d unread ", inboxes, emails, unread))
	if b.text == "" {
		return st.StatusBar.Render(fit(left, b.width))
	}
	msgStyle := st.StatusInfo
	switch b.level {
	case levelSuccess:
		msgStyle = st.StatusOK
	case levelWarn:
		msgStyle = st.StatusWarn
	case levelError:
		msgStyle = st.StatusError
	}
	msg := msgStyle.Render(" " + b.text + " ")
	lw, mw := ansi.StringWidth(left), ansi.StringWidth(msg)
	if lw+mw > b.width {
		// The message matters more than the counts.
		left = fit(left, max(b.width-mw, 0))
		lw = ansi.StringWidth(left)
	}
	gap := max(b.width-lw-mw, 0)
	return fit(left+st.StatusBar.Render(fit("", gap))+msg, b.width)
}
