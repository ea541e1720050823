package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"sandview/server/store"
)

const inboxColumns = "hash, address, encrypted, email_auth, client_kem_pk, created_at, expires_at, owner"

func scanInbox(row pgx.Row) (store.Inbox, error) {
	var in store.Inbox
	err := row.Scan(&in.Hash, &in.Address, &in.Encrypted, &in.EmailAuth, &in.ClientKemPk, &in.CreatedAt, &in.ExpiresAt, &in.Owner)
	in.CreatedAt, in.ExpiresAt = in.CreatedAt.UTC(), in.ExpiresAt.UTC()
	return in, err
}

// PutInbox implements store.InboxStore. Replacing is allowed for the same hash
// and address; an address or key another inbox holds is store.ErrConflict.
func (s *inboxes) PutInbox(ctx context.Context, in store.Inbox) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO inboxes (`+inboxColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (hash) DO UPDATE SET encrypted = EXCLUDED.encrypted, email_auth = EXCLUDED.email_auth,
			client_kem_pk = EXCLUDED.client_kem_pk, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
			owner = EXCLUDED.owner
		WHERE inboxes.address = EXCLUDED.address`,
		in.Hash, in.Address, in.Encrypted, in.EmailAuth, in.ClientKemPk, in.CreatedAt, in.ExpiresAt, in.Owner)
	if err != nil {
		return s.check(err, "put inbox "+in.Address)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("put inbox %s: %w", in.Address, store.ErrConflict)
	}
	return nil
}

// DeleteInbox implements store.InboxStore.
func (s *inboxes) DeleteInbox(ctx context.Context, hash string) error {
	b := &pgx.Batch{}
	b.Queue("DELETE FROM inboxes WHERE hash = $1", hash)
	queueNotify(b, s.notice(wireInbox, hash, ""))
	return s.check(s.sendBatch(ctx, b), "delete inbox")
}

// Inboxes implements store.InboxStore.
func (s *inboxes) Inboxes(ctx context.Context) ([]store.Inbox, error) {
	if s.ctx.Err() != nil {
		return nil, store.ErrClosed
	}
	rows, err := s.pool.Query(ctx, "SELECT "+inboxColumns+" FROM inboxes")
	if err != nil {
		return nil, s.check(err, "list inboxes")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Inbox, error) { return scanInbox(r) })
	return out, s.check(err, "list inboxes")
}

// Inbox implements store.Store.
func (s *inboxes) Inbox(ctx context.Context, hash string) (store.Inbox, error) {
	in, err := scanInbox(s.pool.QueryRow(ctx, "SELECT "+inboxColumns+" FROM inboxes WHERE hash = $1", hash))
	return in, s.check(err, "inbox "+hash)
}

// InboxByAddress implements store.Store.
func (s *inboxes) InboxByAddress(ctx context.Context, address string) (store.Inbox, error) {
	in, err := scanInbox(s.pool.QueryRow(ctx, "SELECT "+inboxColumns+" FROM inboxes WHERE address = $1", address))
	return in, s.check(err, "inbox "+address)
}
