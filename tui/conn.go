package tui

import (
	"context"
	"errors"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"sandview/client"
	"sandview/tui/ui"
)

// connChanged shows a new connection state, keeps its cause in the log,
// and, when mail flows again after trouble, lists every inbox again to
// catch up.
func (a *App) connChanged(c connState) tea.Cmd {
	if c.err != "" && c.err != a.conn.err {
		text, _, _ := c.text()
		a.ctx.Log(text, ui.LevelWarn)
	}
	a.conn = c
	reload := c.healthy() && a.troubled
	if c.healthy() || c.troubled() {
		a.troubled = !c.healthy()
	}
	if reload {
		return a.mail.ReloadAll()
	}
	return nil
}

// keyCheckedMsg is the answer to the key check at start.
type keyCheckedMsg struct {
	ok  bool
	err error
}

// checkKey asks the server whether it accepts the API key.
func (a *App) checkKey() tea.Cmd {
	svc, ctx := a.cfg.svc, a.runCtx
	if svc == nil {
		return nil
	}
	return func() tea.Msg {
		ok, err := svc.CheckKey(ctx)
		return keyCheckedMsg{ok: ok, err: err}
	}
}

// keyChecked shows the key screen when the key was refused; a server that
// cannot be reached shows as offline until the feed says more.
func (a *App) keyChecked(msg keyCheckedMsg) tea.Cmd {
	switch {
	case msg.err != nil && !errors.Is(msg.err, context.Canceled):
		a.conn = connState{kind: connOffline, err: ui.ErrorText(msg.err)}
		a.ctx.Log("check the API key: "+ui.ErrorText(msg.err), ui.LevelError)
	case msg.err == nil && !msg.ok:
		a.keyRefused = "the server answered 401: the key is wrong or was revoked"
		a.ctx.Log("the server refused the API key", ui.LevelError)
	case msg.ok:
		a.keyRefused = ""
	}
	return nil
}

// refusedBy shows the key screen when err is the server refusing the key.
func (a *App) refusedBy(err error) {
	var unauthorized *client.UnauthorizedError
	if errors.As(err, &unauthorized) {
		a.keyRefused = ui.ErrorText(unauthorized)
	}
}

// keyScreenKey handles the keys of the key screen: resync checks the key
// again (and reconnects), quit quits, the log opens.
func (a *App) keyScreenKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.ctx.Keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Log):
		a.ctx.Open(ui.NewLogDialog(a.ctx))
	case key.Matches(msg, k.Resync):
		a.ctx.Flash("checking the API key again…", ui.LevelInfo)
		cmd, _ := a.mail.HandleKey(msg)
		return tea.Batch(a.checkKey(), cmd)
	}
	return nil
}

// keyScreen is what shows instead of the screens while the server refuses
// the API key: what happened and what to do, height lines tall.
func (a *App) keyScreen(height int) string {
	st := a.ctx.Styles()
	k := a.ctx.Keys
	width := min(a.width-4, 90)
	var lines []string
	add := func(style lipgloss.Style, text string) {
		lines = append(lines, ui.WrapStyled(style.Render, text, width)...)
	}
	add(st.FieldError, "The server "+a.server+" refused the API key.")
	add(st.Muted, a.keyRefused)
	lines = append(lines, "")
	add(st.Value, "Save the right key once (it goes to config.json in sandview's home, mode 0600):")
	add(st.Code, "    sandview config --url URL --api-key YOUR-API-KEY")
	add(st.Value, "or pass --api-key, or set SERVICE_API_KEY, then start sandview again. A local server's key is in local/api-key under sandview's home; `sandview --local` uses it by itself.")
	lines = append(lines, "")
	add(st.Muted, ui.KeyName(k.Resync)+" checks the key again · "+ui.KeyName(k.Log)+" shows the log · "+ui.KeyName(k.Quit)+" quits")
	out := make([]string, 0, height)
	top := max((height-len(lines))/3, 0)
	for range top {
		out = append(out, "")
	}
	for _, l := range lines {
		out = append(out, "  "+l)
	}
	return ui.Stack(ui.FitLines(ui.Window(out, 0, height), a.width)...)
}
