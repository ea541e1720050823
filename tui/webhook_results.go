package tui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/client/webhookrecv"
	"sandview/model"
)

// webhookResult applies the result of a webhook Cmd or a delivery of the
// receiver; ok is false for messages that are not the webhooks view's.
func (m *Model) webhookResult(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	v := m.hooks
	d := v.data
	switch msg := msg.(type) {
	case webhooksLoadedMsg:
		prev, had := v.selected()
		d.setHooks(msg.hooks)
		d.loadErr = ""
		if msg.err != nil {
			d.loadErr = errorText(msg.err)
			m.flash("webhooks: "+d.loadErr, levelError)
		}
		if had {
			v.list.selectID(prev.ID)
		}
		v.list.clamp()
		return m.loadSelectedHook(), true
	case webhookLoadedMsg:
		if msg.err != nil {
			d.fullErr[msg.id] = errorText(msg.err)
			return nil, true
		}
		delete(d.fullErr, msg.id)
		if d.index(msg.id) >= 0 {
			d.store(msg.hook, true)
		}
	case webhookMetricsMsg:
		d.metricsErr = ""
		if msg.err != nil {
			d.metricsErr = errorText(msg.err)
			return nil, true
		}
		mt := msg.metrics
		d.metrics = &mt
	case webhookTemplatesMsg:
		d.tplErr = ""
		if msg.err != nil {
			d.tplErr = errorText(msg.err)
			return nil, true
		}
		d.templates = make([]model.TemplateOption, 0, len(msg.templates))
		for _, t := range msg.templates {
			d.templates = append(d.templates, model.TemplateOption{Label: model.SanitizeLine(t.Label), Value: model.SanitizeLine(t.Value)})
		}
	case webhookSavedMsg:
		return m.webhookSaved(msg), true
	case webhookDeletedMsg:
		if msg.err != nil {
			m.flash("delete webhook: "+errorText(msg.err), levelError)
			return nil, true
		}
		_, wasReceiver := d.recvHooks[msg.id]
		d.remove(msg.id)
		if wasReceiver && d.recv != nil {
			d.recv.SetSecrets(d.receiverSecrets()...)
		}
		v.list.clamp()
		m.flash("webhook "+msg.id+" deleted", levelSuccess)
		return tea.Batch(m.cmds.loadWebhookMetrics(), m.loadSelectedHook()), true
	case webhookTestedMsg:
		m.webhookTested(msg)
	case webhookRotatedMsg:
		m.webhookRotated(msg)
	case receiverMsg:
		return m.receiverStarted(msg), true
	case deliveryMsg:
		d.addDelivery(msg.d)
		v.deliveries.arrived()
		dl := d.deliveries[0]
		sig, _ := signatureText(m.sh.styles(), dl.signature)
		level := levelSuccess
		if dl.signature != webhookrecv.SignatureValid {
			level = levelWarn
		}
		m.flash("webhook delivery "+dl.event+" "+sig, level)
		if d.recv == nil {
			return nil, true
		}
		d.dropped = d.recv.Dropped()
		return v.wait(d.recv.Deliveries()), true
	case receiverClosedMsg:
		d.recv, d.recvURL = nil, ""
	default:
		return nil, false
	}
	return nil, true
}

// webhookSaved applies a create or update: a failure goes back to the
// form that sent it, keeping what was typed.
func (m *Model) webhookSaved(msg webhookSavedMsg) tea.Cmd {
	v := m.hooks
	if msg.err != nil {
		if f, ok := m.overlay.(*webhookForm); ok && msg.form {
			f.failed(msg.err)
			return nil
		}
		m.flash("webhook not "+msg.verb+": "+errorText(msg.err), levelError)
		return nil
	}
	if _, ok := m.overlay.(*webhookForm); ok && msg.form {
		m.overlay = nil
	}
	v.data.store(msg.hook, msg.hook.Secret != "")
	v.list.selectID(model.SanitizeLine(msg.hook.ID))
	m.flash("webhook "+model.SanitizeLine(msg.hook.ID)+" "+msg.verb, levelSuccess)
	return tea.Batch(m.cmds.loadWebhookMetrics(), m.loadSelectedHook())
}

// showDetailSection brings the detail pane into view at a section.
func (m *Model) showDetailSection(id, title string) {
	v := m.hooks
	v.list.selectID(id)
	if v.lay.mode == layoutNarrow || v.focus == hookDeliveries {
		m.setHookFocus(hookDetail)
	}
	if h, ok := v.selected(); ok && h.ID == id {
		v.detail.scrollToSection(h, title)
	}
}

func (m *Model) webhookTested(msg webhookTestedMsg) {
	d := m.hooks.data
	id := model.SanitizeLine(msg.id)
	if msg.err != nil {
		d.tests[id] = hookTest{at: m.sh.now, err: errorText(msg.err)}
		m.flash("test "+id+": "+errorText(msg.err), levelError)
	} else {
		t := sanitizeTest(msg.res, m.sh.now)
		d.tests[id] = t
		if t.res.Success {
			m.flash(fmt.Sprintf("test %s: delivered, HTTP %d in %d ms", id, t.res.StatusCode, t.res.ResponseTime), levelSuccess)
		} else {
			m.flash("test "+id+" failed: "+orNone(t.res.Error), levelError)
		}
	}
	m.showDetailSection(id, "Test")
}

func (m *Model) webhookRotated(msg webhookRotatedMsg) {
	d := m.hooks.data
	id := model.SanitizeLine(msg.id)
	if msg.err != nil {
		d.rotations[id] = hookRotation{at: m.sh.now, err: errorText(msg.err)}
		m.flash("rotate "+id+": "+errorText(msg.err), levelError)
		m.showDetailSection(id, "Secret rotated")
		return
	}
	old := ""
	if f, ok := d.full[id]; ok {
		old = f.Secret
		f.Secret = model.SanitizeLine(msg.res.Secret)
		d.full[id] = f
	}
	if secrets, ok := d.recvHooks[id]; ok {
		if len(secrets) > 0 {
			old = secrets[0]
		}
		d.recvHooks[id] = []string{msg.res.Secret, old}
		if d.recv != nil {
			d.recv.SetSecrets(d.receiverSecrets()...)
		}
	}
	d.rotations[id] = hookRotation{at: m.sh.now, validUntil: msg.res.PreviousSecretValidUntil}
	m.flash("secret of "+id+" rotated; the previous one stays valid until "+msg.res.PreviousSecretValidUntil.UTC().Format("15:04 UTC"), levelSuccess)
	m.showDetailSection(id, "Secret rotated")
}

// receiverStarted records the receiver and the webhook pointing at it.
func (m *Model) receiverStarted(msg receiverMsg) tea.Cmd {
	v := m.hooks
	d := v.data
	v.starting = false
	var wait tea.Cmd
	if msg.recv != nil && msg.started {
		d.recv, d.recvURL = msg.recv, model.SanitizeLine(msg.recv.URL())
		wait = v.wait(msg.recv.Deliveries())
	}
	if msg.err != nil {
		d.recvErr = receiverErrorText(msg.recv, msg.err)
		m.flash(d.recvErr, levelError)
		return wait
	}
	d.recvErr = ""
	d.recvHooks[msg.hook.ID] = []string{msg.hook.Secret}
	d.store(msg.hook, true)
	id := model.SanitizeLine(msg.hook.ID)
	v.list.selectID(id)
	m.flash("webhook "+id+" delivers to the built-in receiver: send mail to any inbox", levelSuccess)
	return tea.Batch(wait, m.cmds.loadWebhookMetrics(), m.loadSelectedHook())
}

// receiverErrorText explains why the receiver's webhook was not created.
func receiverErrorText(recv *webhookrecv.Receiver, err error) string {
	if recv == nil {
		return errorText(err)
	}
	text := "the server refused a webhook to the built-in receiver at " + recv.URL() + ": " + errorText(err)
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 {
		text += ". Only a local server (sandview --local) accepts HTTP webhooks to 127.0.0.1; a remote server cannot reach this machine's loopback."
	}
	return model.SanitizeLine(text)
}
