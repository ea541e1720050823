package tui

import (
	"context"
	"fmt"

	"sandview/client"
	"sandview/model"
	"sandview/tui/feed"
	"sandview/tui/mail"
	"sandview/tui/webhooks"
)

// service is everything the program needs from the service: the calls of
// both screens and the live feed. clientService implements it over the
// client; tests use fakes.
type service interface {
	mail.Service
	webhooks.Service
	feed.Source
}

// Keystore keeps the inboxes the TUI creates or imports, and forgets the
// ones it deletes (the client's keystore).
type Keystore interface {
	Save(d model.ExportedInbox) error
	Remove(address string) error
}

// clientService adapts *client.Client (and the keystore) to service: the
// webhook calls and the feed are the client's own; the inbox calls are
// keyed by address, and created or imported inboxes are saved to the
// keystore, deleted ones removed from it.
type clientService struct {
	webhooks.Service
	feed.Source
	c  *client.Client
	ks Keystore
}

func newClientService(c *client.Client, ks Keystore) clientService {
	return clientService{Service: c, Source: feed.FromClient(c), c: c, ks: ks}
}

func (s clientService) inbox(address string) (*client.Inbox, error) {
	in, ok := s.c.Inbox(address)
	if !ok {
		return nil, fmt.Errorf("inbox %s is not loaded", address)
	}
	return in, nil
}

func (s clientService) Inboxes() []model.Inbox {
	list := s.c.Inboxes()
	out := make([]model.Inbox, len(list))
	for i, in := range list {
		out[i] = in.Info()
	}
	return out
}

// keep saves an inbox to the keystore; a failure is returned with the
// inbox, which the UI shows as a warning.
func (s clientService) keep(in *client.Inbox) (model.Inbox, error) {
	info := in.Info()
	if s.ks == nil {
		return info, nil
	}
	d, err := in.Export()
	if err == nil {
		err = s.ks.Save(d)
	}
	if err != nil {
		return info, fmt.Errorf("the inbox works but was not saved to the keystore (export it to a file instead): %w", err)
	}
	return info, nil
}

func (s clientService) CreateInbox(ctx context.Context, opts client.CreateInboxOptions) (model.Inbox, error) {
	created, err := s.c.CreateInbox(ctx, opts)
	if err != nil {
		return model.Inbox{}, err
	}
	return s.keep(created)
}

func (s clientService) DeleteInbox(ctx context.Context, address string) error {
	if err := s.c.DeleteInbox(ctx, address); err != nil {
		return err
	}
	if s.ks != nil {
		if err := s.ks.Remove(address); err != nil {
			return fmt.Errorf("deleted on the server, but the keystore entry stays: %w", err)
		}
	}
	return nil
}

func (s clientService) ExportInbox(address, path string) error {
	in, err := s.inbox(address)
	if err != nil {
		return err
	}
	return s.c.ExportInboxToFile(in, path)
}

func (s clientService) ImportInbox(ctx context.Context, path string) (model.Inbox, error) {
	in, err := s.c.ImportInboxFromFile(ctx, path)
	if err != nil {
		return model.Inbox{}, err
	}
	return s.keep(in)
}

func (s clientService) Emails(ctx context.Context, address string) ([]model.Email, error) {
	in, err := s.inbox(address)
	if err != nil {
		return nil, err
	}
	return in.Emails(ctx, client.ListOptions{})
}

func (s clientService) Email(ctx context.Context, address, id string) (model.Email, error) {
	in, err := s.inbox(address)
	if err != nil {
		return model.Email{}, err
	}
	return in.Email(ctx, id)
}

func (s clientService) Raw(ctx context.Context, address, id string) ([]byte, error) {
	in, err := s.inbox(address)
	if err != nil {
		return nil, err
	}
	return in.Raw(ctx, id)
}

func (s clientService) MarkRead(ctx context.Context, address, id string) error {
	in, err := s.inbox(address)
	if err != nil {
		return err
	}
	return in.MarkRead(ctx, id)
}

func (s clientService) DeleteEmail(ctx context.Context, address, id string) error {
	in, err := s.inbox(address)
	if err != nil {
		return err
	}
	return in.DeleteEmail(ctx, id)
}
