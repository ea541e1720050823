package tui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/tuitest"
)

// burstPerFrame is how many mails a frame gathers when the server
// ingests about 1,200 encrypted mails a second (its headless rate on 2
// cores) and the feed delivers a batch a feed.BurstInterval (ten a
// second) during a burst.
const burstPerFrame = 120

// BenchmarkBurst is the cost per arriving mail of a burst into the demo
// inbox at 160x50, with 0 and 10,000 mails already listed: the program
// takes each message of the feed and draws a frame after it, as
// bubbletea does. "per-mail" hands over one mail a message (the feed
// before it gathered mail); "batched" hands over burstPerFrame mails a
// message, as the feed does during a burst. frames/mail is the frames
// drawn per mail, cpu-ns/mail the process's CPU time per mail (the
// garbage collector's included; steadier than ns/op on a busy machine).
// One op is one mail.
func BenchmarkBurst(b *testing.B) {
	for _, listed := range []int{0, 10000} {
		for _, per := range []int{1, burstPerFrame} {
			name := "per-mail"
			if per > 1 {
				name = "batched"
			}
			b.Run(fmt.Sprintf("listed=%d/%s", listed, name), func(b *testing.B) {
				h := benchHarness(b, listed, false)
				frames, id := 0, 0
				mail := func() feed.NewEmailMsg {
					id++
					return feed.NewEmailMsg{Address: tuitest.DemoAddr, Email: model.Email{
						ID: fmt.Sprintf("new-%07d", id), From: fmt.Sprintf("Burst %d <b%d@example.com>", id%31, id),
						To: []string{tuitest.DemoAddr}, Subject: fmt.Sprintf("Burst mail %d", id),
						ReceivedAt: tuitest.Now().Add(time.Duration(id) * time.Millisecond),
					}}
				}
				b.ReportAllocs()
				n := 0
				cpu := processCPUTime()
				for b.Loop() {
					var msg tea.Msg
					if per == 1 {
						msg = mail()
					} else if n%per == 0 {
						batch := make([]feed.NewEmailMsg, per)
						for i := range batch {
							batch[i] = mail()
						}
						msg = feed.NewEmailsMsg{Emails: batch}
					}
					n++
					if msg == nil {
						continue
					}
					next, _ := h.app.Update(msg)
					*h.app = next.(App)
					_ = h.app.View()
					frames++
				}
				b.ReportMetric(float64(frames)/float64(n), "frames/mail")
				b.ReportMetric(float64(processCPUTime()-cpu)/float64(n), "cpu-ns/mail")
			})
		}
	}
}
