package core

import (
	"context"
	"errors"
	"fmt"

	"sandview/model"
	"sandview/server/store"
)

// Emails is the email side of the core: read (signed as served), mark and
// delete the emails of live inboxes.
type Emails struct{ c *Core }

// Emails returns the core's emails.
func (c *Core) Emails() Emails { return Emails{c} }

// IDs lists the ids of an inbox's emails, sorted.
func (e Emails) IDs(ctx context.Context, in *Inbox) ([]string, error) {
	return e.c.store.IDs(ctx, in.Hash)
}

// Page reads one page of an inbox's emails, newest first, with the parsed
// payloads signed when withContent; next is the id to read the next page
// before ("" when the list ends with this page).
func (e Emails) Page(ctx context.Context, in *Inbox, withContent bool, page store.Page) (ready []*store.Email, next string, err error) {
	emails, err := e.c.store.Emails(ctx, in.Hash, withContent, page)
	if err != nil {
		return nil, "", err
	}
	if len(emails) == page.Limit {
		next = emails[len(emails)-1].ID
	}
	if withContent {
		emails, err = e.c.signer.readyAll(ctx, in, emails, store.PartParsed)
	}
	return emails, next, err
}

// Get reads one email with the payloads in need signed; a missing email
// is store.ErrNotFound.
func (e Emails) Get(ctx context.Context, in *Inbox, id string, need store.Parts) (*store.Email, error) {
	email, err := e.c.store.Email(ctx, store.EmailKey{InboxHash: in.Hash, ID: id})
	if err != nil {
		return nil, err
	}
	return e.c.signer.ready(ctx, in, email, need)
}

// MarkRead marks one email read.
func (e Emails) MarkRead(ctx context.Context, in *Inbox, id string) error {
	return e.c.store.MarkRead(ctx, store.EmailKey{InboxHash: in.Hash, ID: id})
}

// Delete removes one email (reason manual).
func (e Emails) Delete(ctx context.Context, in *Inbox, id string) error {
	if err := e.c.store.DeleteEmail(ctx, store.EmailKey{InboxHash: in.Hash, ID: id}); err != nil {
		return fmt.Errorf("delete email %s: %w", id, err)
	}
	e.c.publishDeleted(in, []string{id}, model.DeleteReasonManual)
	return nil
}

// staleRetries bounds how often a commit is rendered again because the
// webhooks changed meanwhile (on another replica, or by a route).
const staleRetries = 3

// commit stores new emails (events are theirs) with their webhook
// deliveries, rendered again when the webhooks changed since, and wakes
// the webhook engine for them.
func (c *Core) commit(ctx context.Context, batch store.Batch, events []Event) error {
	for attempt := 1; ; attempt++ {
		if err := c.hooks.Prepare(&batch, events); err != nil {
			return fmt.Errorf("webhook deliveries: %w", err)
		}
		err := c.store.Commit(ctx, batch)
		if err == nil && len(batch.Deliveries) > 0 {
			c.hooks.Wake()
		}
		if !errors.Is(err, store.ErrStale) || attempt == staleRetries {
			return err
		}
		if err := c.hooks.Reload(ctx); err != nil {
			return fmt.Errorf("reload webhooks: %w", err)
		}
	}
}
