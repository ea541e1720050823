package mail

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/model"
	"sandview/model/search"
	"sandview/server/servertest"
	"sandview/tui/desktop"
	"sandview/tui/feed"
	"sandview/tui/service"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// encryptedInbox starts an embedded server holding n encrypted emails
// in one inbox and returns the client holding that inbox.
func encryptedInbox(t testing.TB, n int) (*client.Client, *client.Inbox) {
	t.Helper()
	srv := servertest.Start(t)
	c, err := client.New(srv.URL(), srv.APIKey())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionEncrypted})
	if err != nil {
		t.Fatal(err)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				req := model.TestEmailRequest{To: in.Address(), Subject: fmt.Sprintf("mail %05d", i), Text: strings.Repeat("body text ", 100)}
				if _, err := c.SendTestEmail(ctx, req); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// The server signs content in the background after it arrives: a
	// user opening the inbox later finds it signed.
	if err := srv.WaitForSignatures(ctx); err != nil {
		t.Fatal(err)
	}
	return c, in
}

// streamSettings are the settings of the screens of these tests.
func streamSettings(t testing.TB) *ui.Settings {
	return &ui.Settings{TempDir: desktop.OpenedDir(t.TempDir())}
}

// streamedScreen is the mail screen over the program's service of the
// client holding the inbox in (service.FromClient).
func streamedScreen(t testing.TB, c *client.Client, width, height int) *harness {
	t.Helper()
	ctx := tuitest.Context(true)
	s := New(ctx, context.Background(), service.FromClient(c, nil), streamSettings(t))
	s.SetSize(width, height)
	return &harness{Driver: tuitest.ScreenDriver(t, ctx, s), ctx: ctx, s: s}
}

// listedFrom runs cmd (and the commands of a batch) until one returns a
// batch of a streamed listing; the others' messages are dropped.
func listedFrom(cmd tea.Cmd) (emailsListedMsg, bool) {
	if cmd == nil {
		return emailsListedMsg{}, false
	}
	switch msg := cmd().(type) {
	case emailsListedMsg:
		return msg, true
	case tea.BatchMsg:
		for _, c := range msg {
			if m, ok := listedFrom(c); ok {
				return m, true
			}
		}
	}
	return emailsListedMsg{}, false
}

// The first listing of an inbox comes in batches: the first holds the
// newest emails (and is shown at once), the others bring the rest, none
// twice, and the list ends up as a listing in one piece has it.
func TestStreamedListingShowsTheNewestFirstAndEveryEmail(t *testing.T) {
	const n = 300
	c, in := encryptedInbox(t, n)
	want, err := in.Emails(context.Background(), client.ListOptions{})
	if err != nil || len(want) != n {
		t.Fatalf("listed %d: %v", len(want), err)
	}
	h := streamedScreen(t, c, 120, 30)
	var batches [][]model.Email
	cmd, _ := h.s.Update(feed.InboxReadyMsg{Address: in.Address()})
	for {
		msg, ok := listedFrom(cmd)
		if !ok {
			t.Fatalf("the listing stopped after %d batches", len(batches))
		}
		batches = append(batches, msg.emails)
		cmd, _ = h.s.Update(msg)
		if view := h.shown(); len(batches) == 1 && (!strings.Contains(view, "so far") || !strings.Contains(view, msg.emails[0].Subject)) {
			t.Fatalf("the first batch is not shown with the progress:\n%s", view)
		}
		if msg.done {
			break
		}
	}
	if len(batches) < 2 {
		t.Fatalf("%d batches, want the first and at least one more", len(batches))
	}
	first := batches[0]
	if len(first) < h.s.loader.firstBatch() || len(first) >= n {
		t.Fatalf("first batch of %d emails", len(first))
	}
	oldestFirst := first[0].ReceivedAt
	for _, e := range first {
		if e.ReceivedAt.Before(oldestFirst) {
			oldestFirst = e.ReceivedAt
		}
	}
	seen := map[string]bool{}
	for k, batch := range batches {
		for _, e := range batch {
			if seen[e.ID] {
				t.Fatalf("email %s listed twice", e.ID)
			}
			seen[e.ID] = true
			if !e.HasContent || e.Problem != "" {
				t.Fatalf("email %s not opened: %+v", e.ID, e)
			}
			if k > 0 && e.ReceivedAt.After(oldestFirst) {
				t.Fatalf("email %s of batch %d is newer than the first batch", e.ID, k)
			}
		}
	}
	e, _ := h.s.state.find(in.Address())
	if len(e.emails) != n || e.loading || !e.loaded || e.stream != nil {
		t.Fatalf("after the listing: %d emails, loading %v, loaded %v", len(e.emails), e.loading, e.loaded)
	}
	for i := range want {
		if e.emails[i].ID != want[i].ID {
			t.Fatalf("position %d holds %s, the listing in one piece %s", i, e.emails[i].ID, want[i].ID)
		}
	}
	if strings.Contains(h.shown(), "so far") {
		t.Fatalf("progress still shown:\n%s", h.shown())
	}
}

// While an inbox is listed in batches, the list's title and the search
// line say how many emails are in so far.
func TestStreamedListingShowsProgress(t *testing.T) {
	h := newHarness(t, 160, 30)
	e := h.current()
	e.stream = &listStream{address: e.info.EmailAddress, listed: 1234}
	h.s.panes.emails.refresh()
	if !strings.Contains(h.shown(), "loading… 1234 emails so far") {
		t.Fatalf("no progress in the title:\n%s", h.shown())
	}
	h.Press("/")
	h.Type("body:invoice")
	if !strings.Contains(h.shown(), "· loading… 1234 emails so far") {
		t.Fatalf("no progress on the search line:\n%s", h.shown())
	}
}

// A search matching nothing while the listing is still coming in says no
// match has arrived yet, not that none matches; once listed, that none
// does.
func TestSearchWhileListingSaysStillLoading(t *testing.T) {
	h := newHarness(t, 160, 30)
	e := h.current()
	e.stream = &listStream{address: e.info.EmailAddress, listed: 3}
	h.s.panes.emails.refresh()
	h.search("zzz-nothing")
	if v := h.shown(); !strings.Contains(v, "No matches yet — still loading…") || strings.Contains(v, search.NoMatches) {
		t.Fatalf("a search matching nothing while listing:\n%s", v)
	}
	e.stream = nil
	h.s.panes.emails.refresh()
	h.rest()
	if v := h.shown(); !strings.Contains(v, search.NoMatches) || strings.Contains(v, "still loading") {
		t.Fatalf("a search matching nothing once listed:\n%s", v)
	}
}

// BenchmarkFirstFrame10k is the first listing of an inbox of 10,000
// encrypted emails (embedded server, set up once) to the first frame
// that shows its newest mail. "streamed": the list requested, its first
// batch opened, merged and drawn (the rest of the listing is cancelled);
// "one-piece": the whole list opened, then stored and drawn, as a
// listing in one piece (every listing before streaming, a reload now)
// does. "key-idle": a key press (down, then up) to a frame, the 10,000
// listed. "key-while-loading": a key press (down, then up) to a frame
// while a streamed listing of the 10,000 emails runs in the background,
// with any batch that is ready merged first (what a key may wait for),
// with the 99th percentile, the slowest and the mean merge of a batch.
func BenchmarkFirstFrame10k(b *testing.B) {
	const n = 10000
	c, in := encryptedInbox(b, n)
	h := streamedScreen(b, c, 160, 50)
	e, _ := h.s.state.find(in.Address())
	first := h.s.loader.firstBatch()
	forget := func() {
		e.loaded, e.emails = false, nil
		e.reindex()
	}
	shows := func(b *testing.B, view string) {
		if len(e.emails) == 0 || !strings.Contains(view, e.emails[0].Subject) {
			b.Fatalf("first frame:\n%s", view)
		}
	}
	b.Run("streamed", func(b *testing.B) {
		for b.Loop() {
			forget()
			st, cmd := h.s.cmds.streamEmails(in.Address(), first)
			e.stream = st
			h.s.Update(cmd())
			shows(b, h.shown())
			b.StopTimer()
			st.cancel()
			<-st.ended
			e.stream = nil
			b.StartTimer()
		}
	})
	b.Run("one-piece", func(b *testing.B) {
		for b.Loop() {
			forget()
			h.s.Update(h.s.cmds.loadEmails(in.Address())())
			shows(b, h.shown())
		}
		if len(e.emails) != n {
			b.Fatalf("%d emails listed", len(e.emails))
		}
	})
	down, up := tuitest.Key("down"), tuitest.Key("up")
	press := func(i int) {
		k := down
		if (i/200)%2 == 1 {
			k = up
		}
		h.s.HandleKey(k)
		_ = h.s.View()
	}
	b.Run("key-idle", func(b *testing.B) {
		if len(e.emails) != n {
			h.s.Update(h.s.cmds.loadEmails(in.Address())())
		}
		var took []time.Duration
		for i := 0; b.Loop(); i++ {
			began := time.Now()
			press(i)
			took = append(took, time.Since(began))
		}
		reportLatency(b, took)
	})
	b.Run("key-while-loading", func(b *testing.B) {
		ready := make(chan tea.Msg, 1)
		var next tea.Cmd
		start := func() {
			forget()
			st, cmd := h.s.cmds.streamEmails(in.Address(), first)
			e.stream = st
			next, _ = h.s.Update(cmd())
			go func() { ready <- listedMsgOf(next) }()
		}
		start()
		i := 0
		var took []time.Duration
		var merging time.Duration // the time of the merges
		merges := 0
		for b.Loop() {
			began := time.Now()
			select {
			case msg := <-ready:
				m := msg.(emailsListedMsg)
				if m.stream == nil {
					b.Fatal("the listing stopped")
				}
				next, _ = h.s.Update(m)
				merging += time.Since(began)
				merges++
				if m.done {
					start()
				} else {
					go func() { ready <- listedMsgOf(next) }()
				}
			default:
			}
			press(i)
			i++
			took = append(took, time.Since(began))
		}
		b.StopTimer()
		reportLatency(b, took)
		if merges > 0 {
			b.ReportMetric(float64(merging)/float64(merges)/float64(time.Millisecond), "merge-ms")
		}
		e.stream.cancel()
		<-ready
	})
}

// reportLatency reports the 99th percentile and the slowest of took.
func reportLatency(b *testing.B, took []time.Duration) {
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)*99/100])/float64(time.Millisecond), "p99-ms")
	b.ReportMetric(float64(took[len(took)-1])/float64(time.Millisecond), "max-ms")
}

// listedMsgOf is the batch cmd brings (see listedFrom).
func listedMsgOf(cmd tea.Cmd) tea.Msg {
	m, _ := listedFrom(cmd)
	return m
}

// streamTo runs the batches of a streamed listing that cmd starts, the
// last one included, and returns what the last one's Update returned.
func streamTo(t *testing.T, s *Screen, cmd tea.Cmd) tea.Cmd {
	t.Helper()
	for {
		msg, ok := listedFrom(cmd)
		if !ok {
			t.Fatal("no batch came")
		}
		cmd, _ = s.Update(msg)
		if msg.done {
			return cmd
		}
	}
}

// loadedFrom runs cmd (and a batch's commands) until one returns a
// listing in one piece.
func loadedFrom(cmd tea.Cmd) (emailsLoadedMsg, bool) {
	if cmd == nil {
		return emailsLoadedMsg{}, false
	}
	switch msg := cmd().(type) {
	case emailsLoadedMsg:
		return msg, true
	case tea.BatchMsg:
		for _, c := range msg {
			if m, ok := loadedFrom(c); ok {
				return m, true
			}
		}
	}
	return emailsLoadedMsg{}, false
}

// An inbox asked to be listed while its streamed listing runs (the feed
// reconnected) is listed again, in one piece, once that listing ends;
// mail delivered live meanwhile stays, and later listings are in one
// piece.
func TestStreamedListingRelistsAndKeepsLiveMail(t *testing.T) {
	svc := tuitest.NewFixtureService()
	ctx := tuitest.Context(true)
	s := New(ctx, context.Background(), svc, streamSettings(t))
	s.SetSize(160, 30)
	first, _ := s.Update(feed.InboxReadyMsg{Address: tuitest.DemoAddr})
	e, _ := s.state.find(tuitest.DemoAddr)
	if e.stream == nil {
		t.Fatal("the first listing is not streamed")
	}
	if again, _ := s.Update(feed.InboxReadyMsg{Address: tuitest.DemoAddr}); again != nil {
		if _, ok := listedFrom(again); ok {
			t.Fatal("a second streamed listing started")
		}
	}
	live := model.Email{ID: "live-1", Subject: "arrived live", ReceivedAt: tuitest.Now().Add(time.Hour)}
	s.Update(feed.NewEmailsMsg{Emails: []feed.NewEmailMsg{{Address: tuitest.DemoAddr, Email: live}}})
	last := streamTo(t, s, first)
	if e.stream != nil || e.loading || !e.loaded {
		t.Fatalf("after the listing: stream %v, loading %v, loaded %v", e.stream, e.loading, e.loaded)
	}
	if len(e.emails) != len(tuitest.Emails())+1 || e.emails[0].ID != "live-1" {
		t.Fatalf("listed %d emails, first %s", len(e.emails), e.emails[0].ID)
	}
	if _, ok := loadedFrom(last); !ok {
		t.Fatal("the inbox asked for again is not listed again")
	}
	if cmd, _ := s.Update(feed.InboxReadyMsg{Address: tuitest.DemoAddr}); e.stream != nil {
		t.Fatal("a listed inbox is streamed again")
	} else if _, ok := loadedFrom(cmd); !ok {
		t.Fatal("a listed inbox is not listed in one piece")
	}
}

// A streamed listing of an inbox the server forgot marks it gone; one of
// an inbox deleted meanwhile ends without touching the others.
func TestStreamedListingOfAGoneInbox(t *testing.T) {
	svc := tuitest.NewFixtureService()
	svc.Forget(tuitest.DemoAddr)
	ctx := tuitest.Context(true)
	s := New(ctx, context.Background(), svc, streamSettings(t))
	first, _ := s.Update(feed.InboxReadyMsg{Address: tuitest.DemoAddr})
	streamTo(t, s, first)
	e, _ := s.state.find(tuitest.DemoAddr)
	if e.gone == "" || e.loading || e.stream != nil {
		t.Fatalf("gone %q, loading %v", e.gone, e.loading)
	}

	plain, _ := s.Update(feed.InboxReadyMsg{Address: tuitest.PlainAddr})
	msg, ok := listedFrom(plain)
	if !ok {
		t.Fatal("no batch came")
	}
	s.state.remove(tuitest.PlainAddr)
	if cmd, _ := s.Update(msg); cmd != nil {
		if _, ok := listedFrom(cmd); ok {
			t.Fatal("the listing of a deleted inbox goes on")
		}
	}
}
