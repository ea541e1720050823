package webhooks

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"sandview/client"
	"sandview/client/webhookrecv"
	"sandview/model"
	"sandview/model/termtext"
	"sandview/tui/ui"
)

// Update applies the result of a webhook Cmd or a delivery of the
// receiver; ok is false for messages that are not the webhooks screen's.
func (s *Screen) Update(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	d := s.state
	switch msg := msg.(type) {
	case webhooksLoadedMsg:
		prev, had := s.list.selected()
		d.setHooks(msg.hooks)
		d.loadErr = ""
		if msg.err != nil {
			d.loadErr = ui.ErrorText(msg.err)
			s.ctx.Flash("webhooks: "+d.loadErr, ui.LevelError)
		}
		if had {
			s.list.selectID(prev.ID)
		}
		return s.list.loadSelected(), true
	case webhookLoadedMsg:
		if msg.err != nil {
			d.fullErr[msg.id] = ui.ErrorText(msg.err)
			return nil, true
		}
		delete(d.fullErr, msg.id)
		if d.index(msg.id) >= 0 {
			d.put(msg.hook, true)
		}
	case webhookMetricsMsg:
		d.metricsErr = ""
		if msg.err != nil {
			d.metricsErr = ui.ErrorText(msg.err)
			return nil, true
		}
		mt := msg.metrics
		d.metrics = &mt
	case webhookTemplatesMsg:
		d.tplErr = ""
		if msg.err != nil {
			d.tplErr = ui.ErrorText(msg.err)
			return nil, true
		}
		d.templates = make([]model.TemplateOption, 0, len(msg.templates))
		for _, t := range msg.templates {
			d.templates = append(d.templates, model.TemplateOption{Label: termtext.SanitizeLine(t.Label), Value: termtext.SanitizeLine(t.Value)})
		}
	case webhookSavedMsg:
		return s.saved(msg), true
	case webhookDeletedMsg:
		if msg.err != nil {
			s.ctx.Flash("delete webhook: "+ui.ErrorText(msg.err), ui.LevelError)
			return nil, true
		}
		_, wasReceiver := d.recvHooks[msg.id]
		d.remove(msg.id)
		if wasReceiver && d.recv != nil {
			d.recv.SetSecrets(d.receiverSecrets()...)
		}
		s.ctx.Flash("webhook "+msg.id+" deleted", ui.LevelSuccess)
		return tea.Batch(s.cmds.loadWebhookMetrics(), s.list.loadSelected()), true
	case webhookTestedMsg:
		s.tested(msg)
	case webhookRotatedMsg:
		s.rotated(msg)
	case ReceiverMsg:
		return s.receiverStarted(msg), true
	case statsDueMsg:
		return s.refreshStats(msg.seq), true
	case DeliveryMsg:
		d.addDelivery(msg.Delivery)
		s.deliveries.arrived()
		dl := d.deliveries[0]
		sig, _ := signatureText(s.ctx.Styles(), dl.signature)
		level := ui.LevelSuccess
		if dl.signature != webhookrecv.SignatureValid {
			level = ui.LevelWarn
		}
		s.ctx.Flash("webhook delivery "+dl.event+" "+sig, level)
		if d.recv == nil {
			return s.statsDue(), true
		}
		d.dropped = d.recv.Dropped()
		return tea.Batch(s.wait(d.recv.Deliveries()), s.statsDue()), true
	case receiverClosedMsg:
		d.recv, d.recvURL = nil, ""
	default:
		return nil, false
	}
	return nil, true
}

// saved applies a create or update: a failure goes back to the form that
// sent it, keeping what was typed.
func (s *Screen) saved(msg webhookSavedMsg) tea.Cmd {
	f, formOpen := s.ctx.Dialog().(*form)
	if msg.err != nil {
		if formOpen && msg.form {
			f.failed(msg.err)
			return nil
		}
		s.ctx.Flash("webhook not "+msg.verb+": "+ui.ErrorText(msg.err), ui.LevelError)
		return nil
	}
	if formOpen && msg.form {
		s.ctx.Close(f)
	}
	s.state.put(msg.hook, msg.hook.Secret != "")
	s.list.selectID(termtext.SanitizeLine(msg.hook.ID))
	s.ctx.Flash("webhook "+termtext.SanitizeLine(msg.hook.ID)+" "+msg.verb, ui.LevelSuccess)
	return tea.Batch(s.cmds.loadWebhookMetrics(), s.list.loadSelected())
}

// showSection brings the detail pane into view at a section of webhook id.
func (s *Screen) showSection(id, title string) {
	s.list.selectID(id)
	if s.lay.Mode == ui.Narrow || s.Focus() == PaneDeliveries {
		s.setFocus(PaneDetail)
	}
	if h, ok := s.list.selected(); ok && h.ID == id {
		s.detail.showSection(title)
	}
}

func (s *Screen) tested(msg webhookTestedMsg) {
	d := s.state
	now := s.ctx.Now
	id := termtext.SanitizeLine(msg.id)
	if msg.err != nil {
		d.tests[id] = hookTest{at: now, err: ui.ErrorText(msg.err)}
		s.ctx.Flash("test "+id+": "+ui.ErrorText(msg.err), ui.LevelError)
	} else {
		t := sanitizeTest(msg.res, now)
		d.tests[id] = t
		if t.res.Success {
			s.ctx.Flash(fmt.Sprintf("test %s: delivered, HTTP %d in %d ms", id, t.res.StatusCode, t.res.ResponseTime), ui.LevelSuccess)
		} else {
			s.ctx.Flash("test "+id+" failed: "+orNone(t.res.Error), ui.LevelError)
		}
	}
	s.showSection(id, "Test")
}

func (s *Screen) rotated(msg webhookRotatedMsg) {
	d := s.state
	now := s.ctx.Now
	id := termtext.SanitizeLine(msg.id)
	if msg.err != nil {
		d.rotations[id] = hookRotation{at: now, err: ui.ErrorText(msg.err)}
		s.ctx.Flash("rotate "+id+": "+ui.ErrorText(msg.err), ui.LevelError)
		s.showSection(id, "Secret rotated")
		return
	}
	old := ""
	if f, ok := d.full[id]; ok {
		old = f.Secret
		f.Secret = termtext.SanitizeLine(msg.res.Secret)
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
	d.rotations[id] = hookRotation{at: now, validUntil: msg.res.PreviousSecretValidUntil}
	s.ctx.Flash("secret of "+id+" rotated; the previous one stays valid until "+msg.res.PreviousSecretValidUntil.UTC().Format("15:04 UTC"), ui.LevelSuccess)
	s.showSection(id, "Secret rotated")
}

// receiverStarted records the receiver and the webhook pointing at it.
func (s *Screen) receiverStarted(msg ReceiverMsg) tea.Cmd {
	d := s.state
	s.starting = false
	for _, id := range msg.Removed {
		d.remove(termtext.SanitizeLine(id))
	}
	if n := len(msg.Removed); n > 0 {
		s.ctx.Log(fmt.Sprintf("deleted %d webhook(s) an earlier run left pointing at a receiver that no longer listens", n), ui.LevelInfo)
	}
	var wait tea.Cmd
	if msg.Receiver != nil && msg.Started {
		d.recv, d.recvURL = msg.Receiver, termtext.SanitizeLine(msg.Receiver.URL())
		wait = s.wait(msg.Receiver.Deliveries())
	}
	if msg.Err != nil {
		d.recvErr = receiverErrorText(msg.Receiver, msg.Err)
		s.ctx.Flash(d.recvErr, ui.LevelError)
		return wait
	}
	d.recvErr = ""
	d.recvHooks[msg.Hook.ID] = []string{msg.Hook.Secret}
	d.put(msg.Hook, true)
	id := termtext.SanitizeLine(msg.Hook.ID)
	s.list.selectID(id)
	s.ctx.Flash("webhook "+id+" delivers to the built-in receiver: send mail to any inbox", ui.LevelSuccess)
	return tea.Batch(wait, s.cmds.loadWebhookMetrics(), s.list.loadSelected())
}

// receiverErrorText explains why the receiver's webhook was not created.
func receiverErrorText(recv Receiver, err error) string {
	if recv == nil {
		return ui.ErrorText(err)
	}
	text := "the server refused a webhook to the built-in receiver at " + recv.URL() + ": " + ui.ErrorText(err)
	var refused *client.RefusedError
	if errors.As(err, &refused) {
		text += ". Only a local server (sandview --local) accepts HTTP webhooks to 127.0.0.1; a remote server cannot reach this machine's loopback."
	}
	return termtext.SanitizeLine(text)
}
