package feed

import (
	"sandview/client"
	"sandview/model"
)

// FromClient is the Source of a client's delivery API:
// Client.WatchAllDirect pushes, from the client's delivering goroutines
// and with no queue of its own, every new email of every loaded inbox
// (inboxes created or imported later included) and says when an inbox
// starts delivering or is gone from the server, and which emails were
// deleted on it and which chaos actions its mail met;
// Client.OnStateChange pushes the connection state and
// Client.OnSyncError background errors.
func FromClient(c *client.Client) Source { return clientSource{c} }

type clientSource struct{ c *client.Client }

func (s clientSource) Subscribe(recv Receiver) (func(), error) {
	mon, err := s.c.WatchAllDirect(client.MonitorHandlers{
		Email: func(in *client.Inbox, e model.Email) { recv.NewEmail(in.Address(), e) },
		Ready: func(in *client.Inbox) { recv.InboxReady(in.Address()) },
		Gone:  func(in *client.Inbox, err error) { recv.InboxGone(in.Address(), err) },
		// Mail deleted by another user sharing the inbox leaves the
		// screen at once.
		Deleted: func(in *client.Inbox, id string) { recv.EmailDeleted(in.Address(), id) },
		// Chaos actions go to the inbox's activity as they happen.
		Chaos: func(in *client.Inbox, a model.ChaosAction) { recv.Chaos(in.Address(), a) },
		// The screen fetches the content of the mail it shows.
		MetadataOnly: true,
	})
	if err != nil {
		return nil, err
	}
	states := s.c.OnStateChange(recv.State)
	errs := s.c.OnSyncError(recv.SyncError)
	return func() {
		mon.Unsubscribe()
		states.Unsubscribe()
		errs.Unsubscribe()
	}, nil
}
