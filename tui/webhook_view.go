package tui

import (
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"sandview/client/webhookrecv"
	"sandview/keys"
	"sandview/model"
)

// hookPane identifies a pane of the webhooks view.
type hookPane int

const (
	hookList hookPane = iota
	hookDetail
	hookDeliveries
	hookPaneCount
)

// hookLayout places the panes of the webhooks view; a zero rect is hidden.
type hookLayout struct {
	mode                     layoutMode
	list, detail, deliveries rect
}

// webhookView is the webhooks screen: it replaces the mail panes while
// shown. It lists the webhooks of every scope, details the selected one
// and shows the deliveries of the built-in receiver.
type webhookView struct {
	sh         *shared
	keys       keys.WebhookKeyMap
	data       *webhookData
	list       *webhookList
	detail     *webhookDetail
	deliveries *deliveryPane
	shown      bool
	focus      hookPane
	lay        hookLayout
	// wait reads the receiver's next delivery (waitDelivery; tests that
	// drive the channel themselves replace it).
	wait func(<-chan webhookrecv.Delivery) tea.Cmd
	// starting is set while the receiver's webhook is being created.
	starting bool
}

func newWebhookView(sh *shared) *webhookView {
	d := newWebhookData()
	return &webhookView{
		sh: sh, keys: keys.DefaultWebhook(), data: d,
		list:       &webhookList{sh: sh, data: d},
		detail:     &webhookDetail{sh: sh, data: d},
		deliveries: &deliveryPane{sh: sh, data: d},
		wait:       waitDelivery,
	}
}

// SetSize lays the panes out in the body area (width x height from line
// top).
func (v *webhookView) SetSize(width, height, top int) {
	l := hookLayout{}
	switch {
	case width >= wideMin:
		l.mode = layoutWide
		listW := clampInt(width*45/100, 40, 64)
		detailH := height / 2
		l.list = rect{0, top, listW, height}
		l.detail = rect{listW, top, width - listW, detailH}
		l.deliveries = rect{listW, top + detailH, width - listW, height - detailH}
	case width >= mediumMin:
		l.mode = layoutMedium
		listH := clampInt(height*2/5, 5, height-5)
		l.list = rect{0, top, width, listH}
		lower := rect{0, top + listH, width, height - listH}
		if v.focus == hookDeliveries {
			l.deliveries = lower
		} else {
			l.detail = lower
		}
	default:
		l.mode = layoutNarrow
		full := rect{0, top, width, height}
		switch v.focus {
		case hookList:
			l.list = full
		case hookDetail:
			l.detail = full
		default:
			l.deliveries = full
		}
	}
	v.lay = l
	size := func(r rect) (int, int) {
		if r.w == 0 {
			return width, height
		}
		return r.w, r.h
	}
	v.list.SetSize(size(l.list))
	v.detail.SetSize(size(l.detail))
	v.deliveries.SetSize(size(l.deliveries))
}

// selected is the webhook under the list's cursor.
func (v *webhookView) selected() (model.Webhook, bool) { return v.list.selected() }

// View renders the visible panes.
func (v *webhookView) View() string {
	l := v.lay
	h, found := v.selected()
	switch l.mode {
	case layoutWide:
		right := lipgloss.JoinVertical(lipgloss.Left,
			v.detail.View(h, found, v.focus == hookDetail), v.deliveries.View(v.focus == hookDeliveries))
		return lipgloss.JoinHorizontal(lipgloss.Top, v.list.View(v.focus == hookList), right)
	case layoutMedium:
		lower := v.detail.View(h, found, v.focus == hookDetail)
		if l.deliveries.w > 0 {
			lower = v.deliveries.View(v.focus == hookDeliveries)
		}
		return lipgloss.JoinVertical(lipgloss.Left, v.list.View(v.focus == hookList), lower)
	}
	switch v.focus {
	case hookList:
		return v.list.View(true)
	case hookDetail:
		return v.detail.View(h, found, true)
	}
	return v.deliveries.View(true)
}
