package cli

import "sandview/server"

// refusalNoticeBuffer is how many refusals wait for the TUI; more are
// dropped (the server keeps the latest in its refusal log).
const refusalNoticeBuffer = 32

// refusalNotices hands the server's SMTP refusals to the TUI as one-line
// notices (tui.Config.Notices) until stop is called.
func refusalNotices(srv *server.Server) (notices <-chan string, stop func()) {
	ch := make(chan string, refusalNoticeBuffer)
	stop = srv.WatchRefusals(func(r server.Refusal) {
		select {
		case ch <- r.String():
		default:
		}
	})
	return ch, stop
}
