package reader

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"sandview/model"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// testHost is a Host over the emails of one inbox; it records the
// actions asked of it.
type testHost struct {
	address string
	emails  map[string]model.Email
	calls   []string
}

func (h *testHost) Email(address, id string) (model.Email, bool) {
	m, ok := h.emails[id]
	return m, ok && address == h.address
}

func (h *testHost) LoadRaw(address, id string) tea.Cmd {
	h.calls = append(h.calls, "raw "+address+" "+id)
	return nil
}

func (h *testHost) Raw(context.Context, string, string) ([]byte, error) { return tuitest.RawE1(), nil }

func (h *testHost) Run(context.Context, []byte, string, ...string) ([]byte, error) { return nil, nil }

func (h *testHost) Copy(text, _ string) tea.Cmd {
	h.calls = append(h.calls, "copy "+text)
	return nil
}

func (h *testHost) OpenLink(link, _ string) tea.Cmd {
	h.calls = append(h.calls, "open "+link)
	return nil
}

func (h *testHost) OpenAttachment(a model.Attachment, _ string) tea.Cmd {
	h.calls = append(h.calls, "open "+a.Filename)
	return nil
}

func (h *testHost) OpenHTML(m model.Email) tea.Cmd {
	h.calls = append(h.calls, "html "+m.ID)
	return nil
}

func (h *testHost) SaveAttachment(a model.Attachment) tea.Cmd {
	h.calls = append(h.calls, "save "+a.Filename)
	return nil
}

func (h *testHost) SaveEmail(_ string, m model.Email) tea.Cmd {
	h.calls = append(h.calls, "save "+m.ID)
	return nil
}

func (h *testHost) AuthLines(m model.Email, _ int) []string { return []string{"auth of " + m.ID} }

// readerOn is a reader pane, width x height, open on e alone in the demo
// inbox; hyperlinks as the terminal allows them.
func readerOn(e model.Email, width, height int, hyperlinks bool, now time.Time) *Reader {
	ctx := tuitest.Context(true)
	ctx.Clock = func() time.Time { return now }
	ctx.Now = now
	host := &testHost{address: tuitest.DemoAddr, emails: map[string]model.Email{e.ID: e}}
	r := New(ctx, context.Background(), &ui.Settings{Hyperlinks: hyperlinks}, host)
	r.Open(tuitest.DemoAddr, e.ID)
	r.SetSize(width, height)
	return r
}

// plainLines is the view without any escape sequence, line by line.
func plainLines(view string) []string { return strings.Split(ansi.Strip(view), "\n") }
