package tui

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"sandview/model"
)

var testNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

const testHour = time.Hour

const (
	demoAddr  = "demo@sandbox.test"
	plainAddr = "plain@sandbox.test"
	oldAddr   = "old@sandbox.test"
)

func fixtureInboxes() []model.Inbox {
	return []model.Inbox{
		{EmailAddress: demoAddr, ExpiresAt: testNow.Add(59*time.Minute + 12*time.Second), Encrypted: true, EmailAuth: true},
		{EmailAddress: plainAddr, ExpiresAt: testNow.Add(50 * time.Hour)},
		{EmailAddress: oldAddr, ExpiresAt: testNow.Add(-time.Minute), Encrypted: true},
	}
}

func passingAuth() model.AuthResults {
	return model.AuthResults{
		SPF:        &model.SPFResult{Result: "pass", Domain: "example.com", IP: "192.0.2.10"},
		DKIM:       []model.DKIMResult{{Result: "pass", Domain: "example.com", Selector: "s1"}, {Result: "fail", Domain: "mailer.test", Selector: "k2"}},
		DMARC:      &model.DMARCResult{Result: "pass", Policy: "reject", Aligned: true, Domain: "example.com"},
		ReverseDNS: &model.ReverseDNSResult{Result: "pass", IP: "192.0.2.10", Hostname: "mail.example.com"},
	}
}

// hostileSubject carries a screen clear, an OSC 52 clipboard write, an OSC 8
// hyperlink, a bidi override, a carriage return and an 8-bit CSI.
const hostileSubject = "\x1b[2JInvoice \x1b]52;c;SGVsbG8=\x07\x1b]8;;http://evil.test\x1b\\click\x1b]8;;\x1b\\ \u202eexe.fdp\r\x9b31mdue"

func fixtureEmails() []model.Email {
	return []model.Email{
		{
			ID: "e1", From: `"Alice Example" <alice@example.com>`, To: []string{demoAddr}, Subject: "Welcome to the sandbox",
			ReceivedAt: testNow.Add(-5 * time.Minute), HasContent: true,
			Text:        "Hello!\n\nThis is the text part of a friendly email. It is long enough to wrap in narrow panes so the wrapping shows in the golden files.\n\nBye",
			HTML:        "<p>Hello <b>HTML</b> world</p><p><a href=\"https://example.com/x\">link</a></p>",
			Headers:     map[string]string{"From": "alice@example.com", "Subject": "Welcome to the sandbox", "X-Mailer": "test", "Date": "Sun, 1 Jun 2025 11:55:00 +0000"},
			Links:       []string{"https://example.com/welcome", "mailto:alice@example.com", "javascript:alert(1)"},
			Attachments: []model.Attachment{{Filename: "../../etc/report.pdf", ContentType: "application/pdf", Size: 2048, Content: []byte("%PDF-1.4")}},
			AuthResults: passingAuth(),
		},
		{
			ID: "e2", From: "evil\r\n\x1b[31m<attacker@evil.test>", To: []string{demoAddr}, Subject: hostileSubject,
			ReceivedAt: testNow.Add(-2 * time.Hour), HasContent: true,
			Text:    "pwned \x1b]52;c;cm0gLXJmIC8=\x07 body \x9b2J end \u202e",
			Headers: map[string]string{"X-Evil\x1b[2J": "v\x1b]8;;http://x\x07al"},
			Links:   []string{"https://evil.test/\x1b[2J"},
			AuthResults: model.AuthResults{
				SPF:   &model.SPFResult{Result: "softfail", Domain: "evil.test", Details: "not permitted"},
				DKIM:  []model.DKIMResult{{Result: "none"}},
				DMARC: &model.DMARCResult{Result: "fail", Policy: "quarantine", Domain: "evil.test"},
			},
		},
		{ID: "e3", From: "unknown", Subject: "", ReceivedAt: testNow.Add(-26 * time.Hour), Problem: "server key mismatch"},
		{ID: "e4", From: "bob@example.org", To: []string{demoAddr}, Subject: "Read and old", IsRead: true, ReceivedAt: testNow.Add(-40 * 24 * time.Hour)},
	}
}

// newTestModel returns a model over a fake service holding the fixtures,
// sized width x height, with timers off and a fixed clock.
func newTestModel(t testing.TB, width, height int, dark bool) (*Model, *fakeService) {
	t.Helper()
	svc := newFakeService(fixtureInboxes()...)
	svc.emails[demoAddr] = fixtureEmails()
	svc.raw["e1"] = []byte("From: alice@example.com\r\nSubject: Welcome\r\n\r\nHello \x1b[2J raw\r\n")
	m := newModel(options{
		svc: svc, serverLabel: "local 127.0.0.1:8025", smtpHint: "send mail to demo@sandbox.test via SMTP 127.0.0.1:1025",
		dark: &dark, now: func() time.Time { return testNow },
		open: func(_ context.Context, target string) error { svc.record("open %s", target); return nil },
		tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil },
	})
	send(t, &m, tea.WindowSizeMsg{Width: width, Height: height})
	send(t, &m, emailsLoadedMsg{address: demoAddr, emails: svc.emails[demoAddr]})
	send(t, &m, emailsLoadedMsg{address: plainAddr, emails: nil})
	return &m, svc
}

// send delivers msg and runs the resulting commands to completion, feeding
// their messages back (clipboard, quit and terminal requests are recorded
// instead).
func send(t testing.TB, m *Model, msg tea.Msg) []tea.Msg {
	t.Helper()
	next, cmd := m.Update(msg)
	*m = next.(Model)
	return run(t, m, cmd, 0)
}

func run(t testing.TB, m *Model, cmd tea.Cmd, depth int) []tea.Msg {
	t.Helper()
	if cmd == nil {
		return nil
	}
	if depth > 20 {
		t.Fatal("command chain too deep")
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, run(t, m, c, depth+1)...)
		}
		return out
	case feedStartedMsg:
		return []tea.Msg{msg} // feed tests drive the channel themselves
	}
	if strings.HasPrefix(fmt.Sprintf("%T", msg), "tea.") {
		return []tea.Msg{msg}
	}
	next, c := m.Update(msg)
	*m = next.(Model)
	return append([]tea.Msg{msg}, run(t, m, c, depth+1)...)
}

// keyMsg builds a key press from its name ("down", "enter", "j", "ctrl+c").
func keyMsg(name string) tea.KeyPressMsg {
	special := map[string]tea.Key{
		"up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown}, "enter": {Code: tea.KeyEnter},
		"esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab}, "shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"backspace": {Code: tea.KeyBackspace}, "pgdown": {Code: tea.KeyPgDown}, "pgup": {Code: tea.KeyPgUp},
		"home": {Code: tea.KeyHome}, "end": {Code: tea.KeyEnd}, "space": {Code: tea.KeySpace, Text: " "},
		"ctrl+c": {Code: 'c', Mod: tea.ModCtrl}, "left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight},
		"ctrl+u": {Code: 'u', Mod: tea.ModCtrl},
	}
	if k, ok := special[name]; ok {
		return tea.KeyPressMsg(k)
	}
	r := []rune(name)
	return tea.KeyPressMsg(tea.Key{Code: r[0], Text: name})
}

// press sends keys one after another.
func press(t testing.TB, m *Model, names ...string) []tea.Msg {
	t.Helper()
	var out []tea.Msg
	for _, n := range names {
		out = append(out, send(t, m, keyMsg(n))...)
	}
	return out
}

// typeText types each rune of s.
func typeText(t testing.TB, m *Model, s string) {
	t.Helper()
	for _, r := range s {
		send(t, m, tea.KeyPressMsg(tea.Key{Code: r, Text: string(r)}))
	}
}

// rendered is the view downsampled to a fixed colour profile (ANSI 256).
func rendered(t testing.TB, m *Model) string {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.ANSI256}
	if _, err := w.WriteString(m.View().Content); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// plain is the view without the TUI's own styling.
func plain(m *Model) string { return sgr.ReplaceAllString(m.View().Content, "") }

// assertNoControls fails when s holds escape, C0 (other than newline), C1
// or bidi control characters.
func assertNoControls(t testing.TB, s string) {
	t.Helper()
	for i, r := range s {
		bad := (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
		if bad {
			lo, hi := max(i-30, 0), min(i+30, len(s))
			t.Fatalf("control character %U at byte %d: %q", r, i, s[lo:hi])
		}
	}
}

func lipglossWidth(s string) int { return ansi.StringWidth(s) }

func splitLines(s string) []string { return strings.Split(s, "\n") }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
