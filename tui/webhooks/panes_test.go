package webhooks

import (
	"context"
	"testing"

	"charm.land/bubbles/v2/viewport"

	"sandview/keys"
	"sandview/model"
	"sandview/tui/tuitest"
	"sandview/tui/ui"
)

// Each pane is built alone over a seeded state, with the fixed theme,
// keys and clock of tuitest.Context, driven by keys and compared with its
// golden file at tuitest.PaneSizes; every view must be exactly its size.

// paneKit is what the panes share: the context, a state holding the
// fixture webhooks in list order (the team one with its secret and
// stats), and the list
// whose selection the detail shows.
type paneKit struct {
	ctx   *ui.Context
	keys  keys.WebhookKeyMap
	state *hookState
	list  *hookList
}

func newPaneKit() *paneKit {
	ctx := tuitest.Context(true)
	k := keys.DefaultWebhook()
	st := newHookState()
	hooks := tuitest.Webhooks()
	st.setHooks([]model.Webhook{hooks[0], hooks[2], hooks[1]}) // global ones first, as listed
	st.put(hooks[0], true)
	m := tuitest.Metrics()
	st.metrics = &m
	cmds := commands{ctx: context.Background(), svc: tuitest.NewFixtureService()}
	return &paneKit{ctx: ctx, keys: k, state: st, list: &hookList{ctx: ctx, keys: k, state: st, cmds: cmds, list: ui.NewList(hookRowHeight)}}
}

func TestHookListPane(t *testing.T) {
	list := func(hooks bool) func() ui.Component {
		return func() ui.Component {
			k := newPaneKit()
			if !hooks {
				k.state.setHooks(nil)
			}
			k.list.SetFocus(true)
			return k.list
		}
	}
	tuitest.PaneGoldens(t, map[string]tuitest.PaneCase{
		"first": {Build: list(true)},
		"last":  {Build: list(true), Keys: []string{"G"}},
		"empty": {Build: list(false)},
	})
}

func TestDetailPane(t *testing.T) {
	detailOf := func(hooks, revealed bool) func() ui.Component {
		return func() ui.Component {
			k := newPaneKit()
			if !hooks {
				k.state.setHooks(nil)
			}
			k.state.revealed = revealed
			p := &detail{ctx: k.ctx, keys: k.keys, state: k.state, list: k.list, view: viewport.New()}
			p.SetFocus(true)
			return p
		}
	}
	tuitest.PaneGoldens(t, map[string]tuitest.PaneCase{
		"masked":   {Build: detailOf(true, false)},
		"revealed": {Build: detailOf(true, true)},
		"scrolled": {Build: detailOf(true, false), Keys: []string{"end"}},
		"none":     {Build: detailOf(false, false)},
	})
}

func TestDeliveriesPane(t *testing.T) {
	deliveriesOf := func(listening bool) func() ui.Component {
		return func() ui.Component {
			k := newPaneKit()
			p := &deliveries{ctx: k.ctx, keys: k.keys, state: k.state, list: ui.NewList(1), body: viewport.New()}
			p.SetFocus(true)
			if listening {
				k.state.recvURL = "http://127.0.0.1:40123/hook"
				k.state.recvHooks["whk_team"] = []string{"whsec_teamsecret123"}
				for _, d := range tuitest.Deliveries() {
					k.state.addDelivery(d)
					p.arrived()
				}
			}
			return p
		}
	}
	tuitest.PaneGoldens(t, map[string]tuitest.PaneCase{
		"off":      {Build: deliveriesOf(false)},
		"newest":   {Build: deliveriesOf(true)},
		"oldest":   {Build: deliveriesOf(true), Keys: []string{"G"}},
		"scrolled": {Build: deliveriesOf(true), Keys: []string{"pgdown"}},
	})
}
