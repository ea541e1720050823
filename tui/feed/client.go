package feed

import (
	"sandview/client"
	"sandview/model"
)

// FromClient is the Source of a client's delivery API: Client.WatchAll
// pushes every new email of every loaded inbox (inboxes created or
// imported later included) and says when an inbox starts delivering
// (Monitor.OnReady) or is gone from the server (Monitor.OnGone);
// Client.OnStateChange pushes the connection state and
// Client.OnSyncError background errors.
func FromClient(c *client.Client) Source { return clientSource{c} }

type clientSource struct{ c *client.Client }

func (s clientSource) Subscribe(recv Receiver) (func(), error) {
	mon, err := s.c.WatchAll()
	if err != nil {
		return nil, err
	}
	mon.On(func(in *client.Inbox, e model.Email) { recv.NewEmail(in.Address(), e) })
	mon.OnReady(func(in *client.Inbox) { recv.InboxReady(in.Address()) })
	mon.OnGone(func(in *client.Inbox, err error) { recv.InboxGone(in.Address(), err) })
	states := s.c.OnStateChange(recv.State)
	errs := s.c.OnSyncError(recv.SyncError)
	return func() {
		mon.Unsubscribe()
		states.Unsubscribe()
		errs.Unsubscribe()
	}, nil
}
