package webhooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// statsDelay is how long after the last delivery (or new mail) the
// webhooks' stats are listed again: the server counts a delivery once it
// is answered, and a burst of mail is one refresh.
const statsDelay = 1500 * time.Millisecond

// statsDueMsg is the tick of one refresh request (seq); only the last
// one's tick lists the stats.
type statsDueMsg struct{ seq int }

// statsDue asks for the stats to be listed again soon, once the screen
// has been shown.
func (s *Screen) statsDue() tea.Cmd {
	if !s.opened {
		return nil
	}
	s.statsSeq++
	seq := s.statsSeq
	return s.ctx.Tick(statsDelay, func(time.Time) tea.Msg { return statsDueMsg{seq: seq} })
}

// MailArrived tells the screen that mail arrived: the webhooks it
// triggers change their stats.
func (s *Screen) MailArrived() tea.Cmd { return s.statsDue() }

// refreshStats lists the webhooks, the metrics and the selected webhook
// again, unless a later request is pending.
func (s *Screen) refreshStats(seq int) tea.Cmd {
	if seq != s.statsSeq {
		return nil
	}
	return tea.Batch(s.cmds.loadWebhooks(s.inboxes()), s.cmds.loadWebhookMetrics(), s.list.loadSelected())
}

// Close deletes the webhooks that point at the built-in receiver and stops
// it: nothing keeps delivering to a port that is about to close. ctx bounds
// the requests (the program's own context has ended by then).
func (s *Screen) Close(ctx context.Context) error {
	d := s.state
	var errs []error
	for id := range d.recvHooks {
		if err := s.cmds.svc.DeleteWebhook(ctx, "", id); err != nil {
			errs = append(errs, fmt.Errorf("delete the receiver's webhook %s: %w", id, err))
		}
	}
	if d.recv != nil {
		errs = append(errs, d.recv.Close())
	}
	return errors.Join(errs...)
}
