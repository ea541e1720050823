package tui

import (
	"context"
	"fmt"

	"sandview/client"
	"sandview/client/keystore"
	"sandview/model"
)

// clientService adapts *client.Client (and the keystore) to service.
// Inboxes created or imported are saved to the keystore; deleted ones are
// removed from it.
type clientService struct {
	c  *client.Client
	ks *keystore.Store
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
		return info, fmt.Errorf("the inbox works but was not saved to the keystore (export it with e): %w", err)
	}
	return info, nil
}

func (s clientService) CreateInbox(ctx context.Context, in createInboxInput) (model.Inbox, error) {
	created, err := s.c.CreateInbox(ctx, client.CreateInboxOptions{TTL: in.TTL, EmailAddress: in.Address, Encryption: in.Encryption, EmailAuth: in.EmailAuth})
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

func (s clientService) SyncStatus(ctx context.Context, address string) (model.SyncStatus, error) {
	in, err := s.inbox(address)
	if err != nil {
		return model.SyncStatus{}, err
	}
	return in.SyncStatus(ctx)
}
