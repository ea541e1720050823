package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/server/servertest"
	"sandview/tui/tuitest"
)

// liveProgram is the real program run headless: keys go in through a
// pipe as a terminal sends them, and every view it draws is kept.
type liveProgram struct {
	keys    *io.PipeWriter
	cancel  context.CancelFunc
	done    chan error
	mu      sync.Mutex
	last    string
	changed chan struct{}
}

// startProgram runs the program with cfg at width x height.
func startProgram(t *testing.T, cfg Config, width, height int) *liveProgram {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	in, keys := io.Pipe()
	p := &liveProgram{keys: keys, cancel: cancel, done: make(chan error, 1), changed: make(chan struct{}, 1)}
	watch := func(tm tea.Model, msg tea.Msg) tea.Msg {
		view := tuitest.Plain(tm.(App).View().Content)
		p.mu.Lock()
		p.last = view
		p.mu.Unlock()
		select {
		case p.changed <- struct{}{}:
		default:
		}
		return msg
	}
	go func() {
		p.done <- Run(ctx, cfg, tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithWindowSize(width, height), tea.WithFilter(watch))
	}()
	t.Cleanup(func() {
		keys.Close()
		stopProgram(t, cancel, p.done)
	})
	return p
}

// view is the last view drawn.
func (p *liveProgram) view() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// waitFor waits until a view holds every one of want and none of
// unwanted, and returns it; it fails when the program ends or 60 s pass.
func (p *liveProgram) waitFor(t *testing.T, want []string, unwanted ...string) string {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		view := p.view()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(view, w)
		}
		for _, u := range unwanted {
			ok = ok && !strings.Contains(view, u)
		}
		if ok {
			return view
		}
		select {
		case <-p.changed:
		case err := <-p.done:
			t.Fatalf("program ended early: %v\n%s", err, view)
		case <-deadline:
			t.Fatalf("the view never showed %q without %q:\n%s", want, unwanted, view)
		}
	}
}

// press types keys as a terminal sends them.
func (p *liveProgram) press(t *testing.T, keys string) {
	t.Helper()
	if _, err := io.WriteString(p.keys, keys); err != nil {
		t.Fatal(err)
	}
}

// sendMail sends a plain mail over SMTP to the embedded server.
func sendMail(t *testing.T, smtpAddr, to, subject, body string) {
	t.Helper()
	msg := fmt.Sprintf("From: Shop <shop@example.com>\r\nTo: %s\r\nSubject: %s\r\n\r\n%s\r\n", to, subject, body)
	if err := smtpsend.Send(context.Background(), smtpAddr, "shop@example.com", []string{to}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

// readOnServer is the read flag the service holds for each subject.
func readOnServer(t *testing.T, in *client.Inbox) map[string]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	emails, err := in.Emails(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range emails {
		out[e.Subject] = e.IsRead
	}
	return out
}

// TestProgramReadStateIsTheUsers runs the program against the embedded
// server: mail A then B arrive in an empty inbox; the preview shows each
// (the cursor, never moved, follows the newest) and marks nothing read;
// enter opens B, which the service marks read after the dwell while A
// stays unread. Once the user moved the cursor, new mail leaves it; a
// query that does not parse filters nothing; M asks first.
func TestProgramReadStateIsTheUsers(t *testing.T) {
	srv, c, inbox := serverWithInbox(t)
	dark := true
	p := startProgram(t, Config{Client: c, Settings: &Settings{ServerLabel: "test", SMTPAddr: srv.SMTPAddr(), DarkTheme: &dark}}, 160, 40)
	p.waitFor(t, []string{inbox.Address(), "No mail yet"})
	sendMail(t, srv.SMTPAddr(), inbox.Address(), "Mail A", "the body of A")
	p.waitFor(t, []string{"Mail A", "the body of A", "1 email · 1 unread"})
	sendMail(t, srv.SMTPAddr(), inbox.Address(), "Mail B", "the body of B")
	p.waitFor(t, []string{"Mail B", "the body of B", "2 emails · 2 unread", "Messages 1/2"})
	if read := readOnServer(t, inbox); read["Mail A"] || read["Mail B"] {
		t.Fatalf("the preview marked mail read on the service: %v", read)
	}
	p.press(t, "\r")
	p.waitFor(t, []string{"▶ Message ", "the body of B", "2 emails · 1 unread"})
	for deadline := time.Now().Add(30 * time.Second); !readOnServer(t, inbox)["Mail B"]; {
		if time.Now().After(deadline) {
			t.Fatal("the opened mail B was never marked read on the service")
		}
		<-p.changed
	}
	if readOnServer(t, inbox)["Mail A"] {
		t.Fatal("A, only previewed, is read on the service")
	}

	p.press(t, "\x1b")
	p.waitFor(t, []string{"▶ Messages 1/2"})
	p.press(t, "j")
	p.waitFor(t, []string{"▶ Messages 2/2"})
	sendMail(t, srv.SMTPAddr(), inbox.Address(), "Mail C", "the body of C")
	p.waitFor(t, []string{"Mail C", "▶ Messages 3/3", "the body of A"})

	p.press(t, "/is:starred")
	p.waitFor(t, []string{`"is:starred": is: takes`, "nothing filtered", "Mail A", "Mail B", "Mail C"})
	p.press(t, "\x1b")
	p.waitFor(t, []string{"▶ Messages 3/3"}, "is:starred")
	p.press(t, "M")
	p.waitFor(t, []string{"Mark 2 unread emails of " + inbox.Address() + " read on the server?"})
	p.press(t, "n")
	p.waitFor(t, []string{"3 emails · 2 unread"}, "Mark 2 unread")
	if read := readOnServer(t, inbox); read["Mail A"] || read["Mail C"] {
		t.Fatalf("M answered no, or looking, marked mail read: %v", read)
	}
}

// TestProgramReaderFollowsTheInbox: after creating an empty inbox the
// reader no longer shows the mail of the inbox selected before.
func TestProgramReaderFollowsTheInbox(t *testing.T) {
	srv := servertest.Start(t)
	c, err := client.New(srv.URL(), srv.APIKey())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inbox, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dark := true
	p := startProgram(t, Config{Client: c, Settings: &Settings{ServerLabel: "test", SMTPAddr: srv.SMTPAddr(), DarkTheme: &dark}}, 160, 40)
	p.waitFor(t, []string{inbox.Address(), "No mail yet"})
	sendMail(t, srv.SMTPAddr(), inbox.Address(), "Mail A", "the body of A")
	p.waitFor(t, []string{"Mail A", "the body of A"})
	p.press(t, "n")
	p.waitFor(t, []string{"New inbox"})
	p.press(t, "\r")
	view := p.waitFor(t, []string{"Inboxes (2)", "No mail yet"}, "the body of A")
	if !strings.Contains(view, "Select a message") {
		t.Fatalf("the reader is not empty for the new inbox:\n%s", view)
	}
}

// TestHelpOpensOnWhatMatters: at 80x24 the help opens on open, search,
// read/unread, save and quit, not on the Move keys, and says the read
// rule.
func TestHelpOpensOnWhatMatters(t *testing.T) {
	h := newHarness(t, 80, 24, true)
	h.Press("?")
	view := h.plain()
	for _, want := range []string{"open", "search", "read/unread", "mark all read", "save attachment/.eml", "close/quit"} {
		if !strings.Contains(view, want) {
			t.Errorf("the help at 80x24 opens without %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "Move") || strings.Contains(view, "page up") {
		t.Errorf("the help at 80x24 opens on the Move keys:\n%s", view)
	}
	all := strings.Join(strings.Fields(tuitest.Plain(h.app.ctx.Dialog().View(200, 200))), " ")
	if !strings.Contains(all, "marked read on the server only when you open it (enter, or the reader focused) and it stays open for 1 s") {
		t.Errorf("the help does not say the read rule:\n%s", all)
	}
}

// TestWebhooksScreenPausesTheDwell: a mail opened, then the webhooks
// screen shown before the dwell ends, is not marked read; back on the
// mail screen the dwell starts again and marks it.
func TestWebhooksScreenPausesTheDwell(t *testing.T) {
	var fired []func(time.Time) tea.Msg
	svc := tuitest.NewFixtureService()
	h := newHarnessSet(t, svc, 140, 40, true, func(c *Config) {
		c.tick = func(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
			fired = append(fired, fn)
			return nil
		}
	})
	fire := func() {
		pending := fired
		fired = nil
		for _, fn := range pending {
			h.Send(fn(tuitest.Now()))
		}
	}
	fire()
	h.Press("enter", "w")
	fire()
	if svc.Called("markRead") {
		t.Fatalf("a mail left for the webhooks screen before the dwell was marked read: %v", svc.Calls())
	}
	h.Press("w")
	fire()
	if !svc.Called("markRead demo@sandbox.test e1") {
		t.Fatalf("back on the mail screen, the open mail was not marked read: %v", svc.Calls())
	}
}
