package webhooks

import (
	"context"
	"fmt"
	"testing"

	"charm.land/bubbles/v2/viewport"

	"sandview/keys"
	"sandview/model"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// Each pane is built alone over a seeded store, with the fixed theme,
// keys and clock of tuitest.Context, driven by keys and compared with its
// golden file at a few sizes; every view must be exactly its size.

var paneSizes = [][2]int{{30, 10}, {56, 16}, {90, 24}}

// paneKit is what the panes share: the context, a store holding the
// fixture webhooks in list order (the team one with its secret and
// stats), and the list
// whose selection the detail shows.
type paneKit struct {
	ctx   *ui.Context
	keys  keys.WebhookKeyMap
	store *store
	list  *hookList
}

func newPaneKit() *paneKit {
	ctx := tuitest.Context(true)
	k := keys.DefaultWebhook()
	st := newStore()
	hooks := tuitest.Webhooks()
	st.setHooks([]model.Webhook{hooks[0], hooks[2], hooks[1]}) // global ones first, as listed
	st.put(hooks[0], true)
	m := tuitest.Metrics()
	st.metrics = &m
	cmds := commands{ctx: context.Background(), svc: tuitest.NewFixtureService()}
	return &paneKit{ctx: ctx, keys: k, store: st, list: &hookList{ctx: ctx, keys: k, store: st, cmds: cmds, list: ui.NewList(hookRowHeight)}}
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
				for _, n := range c.keys {
					if _, ok := pane.HandleKey(tuitest.Key(n)); !ok {
						t.Fatalf("the pane did not take %q", n)
					}
				}
				tuitest.RequireGolden(t, pane.View(), size[0], size[1])
			})
		}
	}
}

func TestHookListPane(t *testing.T) {
	list := func(k *paneKit) ui.Component {
		k.list.SetFocus(true)
		return k.list
	}
	paneGolden(t, map[string]paneCase{
		"first": {build: list},
		"last":  {build: list, keys: []string{"G"}},
		"empty": {build: func(k *paneKit) ui.Component {
			k.store.setHooks(nil)
			return list(k)
		}},
	})
}

func TestDetailPane(t *testing.T) {
	detailOf := func(revealed bool) func(k *paneKit) ui.Component {
		return func(k *paneKit) ui.Component {
			k.store.revealed = revealed
			p := &detail{ctx: k.ctx, keys: k.keys, store: k.store, list: k.list, view: viewport.New()}
			p.SetFocus(true)
			return p
		}
	}
	paneGolden(t, map[string]paneCase{
		"masked":   {build: detailOf(false)},
		"revealed": {build: detailOf(true)},
		"scrolled": {build: detailOf(false), keys: []string{"end"}},
		"none": {build: func(k *paneKit) ui.Component {
			k.store.setHooks(nil)
			return detailOf(false)(k)
		}},
	})
}

func TestDeliveriesPane(t *testing.T) {
	deliveriesOf := func(listening bool) func(k *paneKit) ui.Component {
		return func(k *paneKit) ui.Component {
			p := &deliveries{ctx: k.ctx, keys: k.keys, store: k.store, list: ui.NewList(1), body: viewport.New()}
			p.SetFocus(true)
			if listening {
				k.store.recvURL = "http://127.0.0.1:40123/hook"
				k.store.recvHooks["whk_team"] = []string{"whsec_teamsecret123"}
				for _, d := range tuitest.Deliveries() {
					k.store.addDelivery(d)
					p.arrived()
				}
			}
			return p
		}
	}
	paneGolden(t, map[string]paneCase{
		"off":      {build: deliveriesOf(false)},
		"newest":   {build: deliveriesOf(true)},
		"oldest":   {build: deliveriesOf(true), keys: []string{"G"}},
		"scrolled": {build: deliveriesOf(true), keys: []string{"pgdown"}},
	})
}
