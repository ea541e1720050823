package client_test

import (
	"testing"
	"time"

	"sandview/client"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server/servertest"
)

// TestDirectMonitorMetadataOnly: a direct monitor that asks for the
// metadata only gets each new mail with its metadata only (sender,
// subject; no content), unfetched, whichever way it was found: the event
// stream's notification, or the listing of a sync (every mail while
// polling; while streaming, mail the sync after the stream opened lists
// before its notification is read). Once another monitor of the client
// wants the content, the mail is fetched and both get it in full.
func TestDirectMonitorMetadataOnly(t *testing.T) {
	srv := servertest.Start(t)
	for _, strategy := range []client.Strategy{client.StrategySSE, client.StrategyPolling} {
		for _, enc := range []string{model.EncryptionEncrypted, model.EncryptionPlain} {
			t.Run(string(strategy)+"/"+enc, func(t *testing.T) {
				c := clienttest.NewClient(t, srv.URL(), clienttest.Fast(strategy)...)
				ctx := clienttest.Ctx(t)
				in, err := c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: enc})
				if err != nil {
					t.Fatal(err)
				}
				ready := make(chan struct{}, 1)
				meta := make(chan model.Email, 4)
				direct, err := c.WatchAllDirect(client.MonitorHandlers{
					MetadataOnly: true,
					Email:        func(_ *client.Inbox, e model.Email) { meta <- e },
					Ready:        func(*client.Inbox) { ready <- struct{}{} },
				})
				if err != nil {
					t.Fatal(err)
				}
				defer direct.Unsubscribe()
				receive := func(ch <-chan model.Email) model.Email {
					t.Helper()
					select {
					case e := <-ch:
						return e
					case <-time.After(30 * time.Second):
						t.Fatal("no mail delivered")
						return model.Email{}
					}
				}
				<-ready
				sendSMTP(t, srv, in.Address(), "Metadata only")
				e := receive(meta)
				if e.Subject != "Metadata only" || e.From == "" || e.HasContent || e.Text != "" || len(e.Attachments) != 0 {
					t.Fatalf("the metadata-only monitor got %+v", e)
				}

				full := make(chan model.Email, 4)
				mon, err := c.WatchAll()
				if err != nil {
					t.Fatal(err)
				}
				defer mon.Unsubscribe()
				mon.OnReady(func(*client.Inbox) { ready <- struct{}{} })
				mon.On(func(_ *client.Inbox, e model.Email) { full <- e })
				<-ready
				sendSMTP(t, srv, in.Address(), "Both in full")
				for _, ch := range []<-chan model.Email{meta, full} {
					if e := receive(ch); e.Subject != "Both in full" || !e.HasContent || len(e.Attachments) != 1 {
						t.Fatalf("with a monitor wanting the content, a monitor got %+v", e)
					}
				}
			})
		}
	}
}
