package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"sandview/client"
	"sandview/client/keystore"
	"sandview/model"
	"sandview/tui/feed"
)

// Keystore keeps the inboxes the TUI creates or imports, forgets the ones
// it deletes, and lists what other programs saved (the client's
// keystore).
type Keystore interface {
	Save(d model.ExportedInbox) error
	Remove(address string) error
	Load() ([]keystore.Entry, error)
	Watch() *keystore.Watcher
}

// clientService adapts *client.Client (and the keystore) to Service: the
// webhook calls are the client's own; the inbox calls are keyed by
// address, and created or imported inboxes are saved to the keystore,
// deleted ones removed from it. Every call finds the client through one
// lookup (client, inbox), which fails with client.ErrNoService when there
// is none.
type clientService struct {
	*client.WebhooksService
	c     *client.Client // nil: no service
	ks    Keystore
	watch *keystore.Watcher // nil without a keystore
}

// FromClient is the Service of c, keeping inboxes in ks (which may be
// nil). With a nil c every call fails with client.ErrNoService, and no
// inbox is listed.
func FromClient(c *client.Client, ks Keystore) Service {
	if c == nil {
		return clientService{WebhooksService: &client.WebhooksService{}}
	}
	s := clientService{WebhooksService: c.Webhooks, c: c, ks: ks}
	if ks != nil {
		s.watch = ks.Watch()
	}
	return s
}

// client is the client, or client.ErrNoService when there is none.
func (s clientService) client() (*client.Client, error) {
	if s.c == nil {
		return nil, client.ErrNoService
	}
	return s.c, nil
}

// inbox is the loaded inbox at address.
func (s clientService) inbox(address string) (*client.Inbox, error) {
	c, err := s.client()
	if err != nil {
		return nil, err
	}
	in, ok := c.Inbox(address)
	if !ok {
		return nil, fmt.Errorf("inbox %s is not loaded", address)
	}
	return in, nil
}

// Subscribe starts the client's live feed (feed.FromClient).
func (s clientService) Subscribe(recv feed.Receiver) (func(), error) {
	c, err := s.client()
	if err != nil {
		return nil, err
	}
	return feed.FromClient(c).Subscribe(recv)
}

func (s clientService) CheckKey(ctx context.Context) (bool, error) {
	c, err := s.client()
	if err != nil {
		return false, err
	}
	return c.CheckKey(ctx)
}

func (s clientService) Inboxes() []model.Inbox {
	if s.c == nil {
		return nil
	}
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

// CreateInbox creates an inbox; when the address asked for is taken by a
// plain inbox (a shared catch-all), that one is attached instead.
func (s clientService) CreateInbox(ctx context.Context, opts client.CreateInboxOptions) (model.Inbox, error) {
	c, err := s.client()
	if err != nil {
		return model.Inbox{}, err
	}
	created, err := c.CreateInbox(ctx, opts)
	var taken *client.AddressTakenError
	if errors.As(err, &taken) && strings.Contains(opts.EmailAddress, "@") {
		return s.attach(ctx, opts.EmailAddress, err)
	}
	if err != nil {
		return model.Inbox{}, err
	}
	return s.keep(created)
}

// attach loads the plain inbox living at address and keeps it in the
// keystore; taken is the error of creating it, returned when the inbox
// cannot be attached.
func (s clientService) attach(ctx context.Context, address string, taken error) (model.Inbox, error) {
	in, err := s.c.OpenPlainInbox(ctx, address)
	var encrypted *client.EncryptedInboxError
	switch {
	case errors.As(err, &encrypted):
		return model.Inbox{}, fmt.Errorf("%s exists and is encrypted and its key is not in this keystore", address)
	case err != nil:
		return model.Inbox{}, taken
	}
	return s.keep(in)
}

func (s clientService) DeleteInbox(ctx context.Context, address string) error {
	c, err := s.client()
	if err != nil {
		return err
	}
	if err := c.DeleteInbox(ctx, address); err != nil {
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
	c, err := s.client()
	if err != nil {
		return model.Inbox{}, err
	}
	in, err := c.ImportInboxFromFile(ctx, path)
	if err != nil {
		return model.Inbox{}, err
	}
	return s.keep(in)
}

// Emails lists an inbox with its content, so the list shows every
// email's auth verdict and the search finds text in bodies at once; the
// attachments' bytes are left out (their size is kept), and fetched when
// an email is opened.
func (s clientService) Emails(ctx context.Context, address string) ([]model.Email, error) {
	in, err := s.inbox(address)
	if err != nil {
		return nil, err
	}
	emails, err := in.Emails(ctx, client.ListOptions{IncludeContent: true})
	for i := range emails {
		dropAttachmentBytes(&emails[i])
	}
	return emails, err
}

// EachEmail lists an inbox as Emails does, passing each email on as soon
// as it and those before it are opened (client.Inbox.EachEmail: the
// server's order, newest first; every core opens mail), so the newest
// can be shown before the whole list is read.
func (s clientService) EachEmail(ctx context.Context, address string, fn func(e model.Email, openErr error) error) error {
	in, err := s.inbox(address)
	if err != nil {
		return err
	}
	return in.EachEmail(ctx, client.ListOptions{IncludeContent: true}, func(e model.Email, openErr error) error {
		dropAttachmentBytes(&e)
		return fn(e, openErr)
	})
}

// dropAttachmentBytes leaves out the bytes of an email's attachments,
// keeping their size: they are fetched when the email is opened.
func dropAttachmentBytes(e *model.Email) {
	for j := range e.Attachments {
		a := &e.Attachments[j]
		if a.Size == 0 {
			a.Size = int64(len(a.Content))
		}
		a.Content = nil
	}
}

// Rescan reconnects the stream now if it waits to and, when the keystore
// changed (or force), loads the inboxes saved there that the client does
// not hold; vanished are the loaded inboxes that have no file any more.
func (s clientService) Rescan(ctx context.Context, force bool) (bool, []string, error) {
	if s.c == nil {
		return false, nil, nil // nothing to reconnect, no keystore
	}
	if force {
		s.c.Reconnect()
	}
	if s.ks == nil {
		return false, nil, nil
	}
	changed, err := s.watch.Changed()
	if err != nil || (!changed && !force) {
		return false, nil, err
	}
	stored, err := s.ks.Load()
	errs := []error{err}
	saved := map[string]bool{}
	for _, st := range stored {
		saved[strings.ToLower(st.Data.EmailAddress)] = true
		if _, loaded := s.c.Inbox(st.Data.EmailAddress); loaded || st.Expired {
			continue
		}
		if _, err := s.c.ImportInboxData(ctx, st.Data); err != nil {
			errs = append(errs, fmt.Errorf("keystore %s: %w", st.Path, err))
		}
	}
	var vanished []string
	for _, in := range s.c.Inboxes() {
		if !saved[strings.ToLower(in.Address())] {
			vanished = append(vanished, in.Address())
		}
	}
	return changed, vanished, errors.Join(errs...)
}

// DefaultDomain is the first domain the server allows, else the domain of
// the first inbox loaded.
func (s clientService) DefaultDomain(ctx context.Context) (string, error) {
	c, err := s.client()
	if err != nil {
		return "", err
	}
	info, err := c.ServerInfo(ctx)
	if err == nil && len(info.AllowedDomains) > 0 {
		return info.AllowedDomains[0], nil
	}
	for _, in := range c.Inboxes() {
		if _, domain, ok := strings.Cut(in.Address(), "@"); ok {
			return domain, nil
		}
	}
	if err != nil {
		return "", err
	}
	return "", errors.New("the server names no domain: type the whole address")
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

func (s clientService) Chaos(ctx context.Context, address string) (model.ChaosConfig, error) {
	in, err := s.inbox(address)
	if err != nil {
		return model.ChaosConfig{}, err
	}
	return in.Chaos().Get(ctx)
}

func (s clientService) SetChaos(ctx context.Context, address string, cfg model.ChaosConfig) (model.ChaosConfig, error) {
	in, err := s.inbox(address)
	if err != nil {
		return model.ChaosConfig{}, err
	}
	return in.Chaos().Set(ctx, cfg)
}

func (s clientService) DisableChaos(ctx context.Context, address string) error {
	in, err := s.inbox(address)
	if err != nil {
		return err
	}
	return in.Chaos().Disable(ctx)
}
