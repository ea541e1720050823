package mail

import (
	"context"
	"fmt"
	"testing"

	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// Each pane is built alone over a seeded store, with the fixed theme,
// keys and clock of tuitest.Context, driven by keys and compared with its
// golden file at a few sizes; every view must be exactly its size.

var paneSizes = [][2]int{{30, 10}, {56, 16}, {90, 24}}

// paneKit is what a pane needs: the shared context, a store holding the
// fixtures (demo loaded, plain empty, old not loaded) and the actions.
type paneKit struct {
	ctx   *ui.Context
	store *store
	cmds  commands
	acts  *actions
}

func newPaneKit() *paneKit {
	ctx := tuitest.Context(true)
	st := &store{}
	st.setInboxes(tuitest.Inboxes())
	demo, _ := st.find(tuitest.DemoAddr)
	demo.setEmails(tuitest.Emails())
	plain, _ := st.find(tuitest.PlainAddr)
	plain.setEmails(nil)
	cmds := commands{ctx: context.Background(), svc: tuitest.NewFixtureService(), open: func(context.Context, string) error { return nil }}
	return &paneKit{ctx: ctx, store: st, cmds: cmds, acts: &actions{ctx: ctx, cmds: cmds, current: func() *inboxEntry { return demo }}}
}

// press gives keys to a pane, failing on keys it does not take.
func press(t *testing.T, c ui.Component, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, ok := c.HandleKey(tuitest.Key(n)); !ok {
			t.Fatalf("the pane did not take %q", n)
		}
	}
}

// paneCase builds a pane, then gives it keys once it is sized.
type paneCase struct {
	build func(k *paneKit) ui.Component
	keys  []string
}

// paneGolden builds each case at each of paneSizes, gives it its keys and
// compares its view with the golden file.
func paneGolden(t *testing.T, cases map[string]paneCase) {
	for name, c := range cases {
		for _, size := range paneSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", name, size[0], size[1]), func(t *testing.T) {
				pane := c.build(newPaneKit())
				pane.SetSize(size[0], size[1])
				press(t, pane, c.keys...)
				tuitest.RequireGolden(t, pane.View(), size[0], size[1])
			})
		}
	}
}

func TestInboxListPane(t *testing.T) {
	list := func(focused bool) func(k *paneKit) ui.Component {
		return func(k *paneKit) ui.Component {
			l := newInboxList(k.ctx, k.store, k.acts)
			l.SetFocus(focused)
			return l
		}
	}
	paneGolden(t, map[string]paneCase{
		"first":   {build: list(true)},
		"last":    {build: list(true), keys: []string{"G"}},
		"blurred": {build: list(false), keys: []string{"j"}},
		"empty": {build: func(k *paneKit) ui.Component {
			k.store.entries = nil
			return list(true)(k)
		}},
	})
}

func TestEmailListPane(t *testing.T) {
	list := func(address string) func(k *paneKit) ui.Component {
		return func(k *paneKit) ui.Component {
			l := newEmailList(k.ctx, k.acts, "send mail to demo@sandbox.test")
			l.SetFocus(true)
			e, _ := k.store.find(address)
			l.setEntry(e)
			return l
		}
	}
	demo := list(tuitest.DemoAddr)
	paneGolden(t, map[string]paneCase{
		"cursor":    {build: demo, keys: []string{"j", "j"}},
		"last":      {build: demo, keys: []string{"pgdown"}},
		"filtering": {build: demo, keys: []string{"/", "b", "o"}},
		"filtered":  {build: demo, keys: []string{"/", "b", "o", "enter"}},
		"empty":     {build: list(tuitest.PlainAddr)},
	})
}

func TestReaderPane(t *testing.T) {
	open := func(id string, tab tab) func(k *paneKit) ui.Component {
		return func(k *paneKit) ui.Component {
			r := newReader(k.ctx, k.store, k.cmds, k.acts)
			r.SetFocus(true)
			r.open(tuitest.DemoAddr, id)
			r.setTab(tab)
			return r
		}
	}
	paneGolden(t, map[string]paneCase{
		"none":        {build: open("", tabBody)},
		"body_scroll": {build: open("e1", tabBody), keys: []string{"down", "down"}},
		"headers":     {build: open("e1", tabHeaders)},
		"links":       {build: open("e1", tabLinks), keys: []string{"down", "down"}},
		"attachments": {build: open("e1", tabAttachments)},
		"auth":        {build: open("e1", tabAuth), keys: []string{"end"}},
		"hostile":     {build: open("e2", tabHeaders)},
		"problem":     {build: open("e3", tabBody)},
		"raw_loaded": {build: func(k *paneKit) ui.Component {
			r := open("e1", tabRaw)(k).(*reader)
			r.raw.set(tuitest.RawE1(), nil)
			return r
		}},
	})
}

func TestAuthReportPane(t *testing.T) {
	report := func(id string) func(k *paneKit) ui.Component {
		return func(k *paneKit) ui.Component {
			r := newReader(k.ctx, k.store, k.cmds, k.acts)
			r.open(tuitest.DemoAddr, id)
			return newAuthReport(k.ctx, r)
		}
	}
	paneGolden(t, map[string]paneCase{"passing": {build: report("e1")}, "failing": {build: report("e2")}})
}

// TestReaderKeysStayInPane checks that the reader leaves the keys that
// move the focus to its screen, and that scrolling stays within the
// content.
func TestReaderKeysStayInPane(t *testing.T) {
	k := newPaneKit()
	r := newReader(k.ctx, k.store, k.cmds, k.acts)
	r.open(tuitest.DemoAddr, "e1")
	r.SetSize(40, 12)
	for _, name := range []string{"esc", "enter", "tab"} {
		if _, ok := r.HandleKey(tuitest.Key(name)); ok {
			t.Errorf("the reader took %q, which moves the focus", name)
		}
	}
	press(t, r, "end")
	bottom := r.view.YOffset()
	press(t, r, "down", "pgdown")
	if r.view.YOffset() != bottom || bottom == 0 {
		t.Fatalf("scrolled past the end: %d then %d", bottom, r.view.YOffset())
	}
	press(t, r, "home")
	if r.view.YOffset() != 0 {
		t.Fatal("home did not go back to the top")
	}
}
