package reader

import (
	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/model/extract"
	"sandview/tui/ui"
)

// copyCode copies the open email's one-time code, the one
// `sandview wait --extract code` prints (model/extract.Codes), or says why
// there is none; host puts it on the clipboard.
func copyCode(ctx *ui.Context, host Host, open model.Email) tea.Cmd {
	switch {
	case open.Problem != "":
		ctx.Flash("this email could not be opened: "+open.Problem, ui.LevelWarn)
	case !open.HasContent:
		ctx.Flash("this email is still loading: try again in a moment", ui.LevelWarn)
	default:
		if codes := extract.Codes(open); len(codes) > 0 {
			return host.Copy(codes[0], "code "+codes[0])
		}
		ctx.Flash("no one-time code in this email (4-8 letters and digits near code, OTP, PIN or verification)", ui.LevelWarn)
	}
	return nil
}
