package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"sandview/server/store"
)

const inboxColumns = "hash, address, encrypted, email_auth, client_kem_pk, created_at, expires_at"

func scanInbox(row pgx.Row) (store.Inbox, error) {
	var in store.Inbox
	err := row.Scan(&in.Hash, &in.Address, &in.Encrypted, &in.EmailAuth, &in.ClientKemPk, &in.CreatedAt, &in.ExpiresAt)
	in.CreatedAt, in.ExpiresAt = in.CreatedAt.UTC(), in.ExpiresAt.UTC()
	return in, err
}

// PutInbox implements store.Store. Replacing is allowed for the same hash
// and address; an address or key another inbox holds is store.ErrConflict.
func (s *Store) PutInbox(ctx context.Context, in store.Inbox) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO inboxes (`+inboxColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (hash) DO UPDATE SET encrypted = EXCLUDED.encrypted, email_auth = EXCLUDED.email_auth,
			client_kem_pk = EXCLUDED.client_kem_pk, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
		WHERE inboxes.address = EXCLUDED.address`,
		in.Hash, in.Address, in.Encrypted, in.EmailAuth, in.ClientKemPk, in.CreatedAt, in.ExpiresAt)
	if err != nil {
		return s.check(err, "put inbox "+in.Address)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("put inbox %s: %w", in.Address, store.ErrConflict)
	}
	return nil
}

// DeleteInbox implements store.Store.
func (s *Store) DeleteInbox(ctx context.Context, hash string) error {
	b := &pgx.Batch{}
	b.Queue("DELETE FROM inboxes WHERE hash = $1", hash)
	queueNotify(b, s.notice(wireInbox, hash, ""))
	return s.check(s.sendBatch(ctx, b), "delete inbox")
}

// Inboxes implements store.Store.
func (s *Store) Inboxes(ctx context.Context) ([]store.Inbox, error) {
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

// Inbox implements store.Shared.
func (s *Store) Inbox(ctx context.Context, hash string) (store.Inbox, error) {
	in, err := scanInbox(s.pool.QueryRow(ctx, "SELECT "+inboxColumns+" FROM inboxes WHERE hash = $1", hash))
	return in, s.check(err, "inbox "+hash)
}

// InboxByAddress implements store.Shared.
func (s *Store) InboxByAddress(ctx context.Context, address string) (store.Inbox, error) {
	in, err := scanInbox(s.pool.QueryRow(ctx, "SELECT "+inboxColumns+" FROM inboxes WHERE address = $1", address))
	return in, s.check(err, "inbox "+address)
}

// Commit implements store.Store: one implicit transaction, with a notice
// for each email put or deleted and the deliveries queued.
func (s *Store) Commit(ctx context.Context, batch store.Batch) error {
	b := &pgx.Batch{}
	if batch.CheckWebhooks {
		b.Queue("SELECT check_webhook_version($1)", int64(batch.WebhookVersion))
	}
	for _, k := range batch.Delete {
		b.Queue("DELETE FROM emails WHERE inbox_hash = $1 AND id = $2", k.InboxHash, k.ID)
		queueNotify(b, s.notice(wireEmailDeleted, k.InboxHash, k.ID))
	}
	for _, e := range batch.Put {
		b.Queue(`INSERT INTO emails (inbox_hash, id, received_at, origin, is_read, unsigned, size, metadata, parsed, raw)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (inbox_hash, id) DO UPDATE SET received_at = EXCLUDED.received_at, is_read = EXCLUDED.is_read,
				unsigned = EXCLUDED.unsigned, size = EXCLUDED.size, metadata = EXCLUDED.metadata,
				parsed = EXCLUDED.parsed, raw = EXCLUDED.raw`,
			e.InboxHash, e.ID, e.ReceivedAt, s.replica, e.IsRead, int16(e.Unsigned), e.Size(), e.Metadata, nonNil(e.Parsed), nonNil(e.Raw))
		queueNotify(b, s.notice(wireEmail, e.InboxHash, e.ID))
	}
	s.queueDeliveries(b, batch.Deliveries)
	if b.Len() == 0 {
		return nil
	}
	return s.check(s.sendBatch(ctx, b), "commit")
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// DeleteEmail implements store.Store.
func (s *Store) DeleteEmail(ctx context.Context, k store.EmailKey) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	var n int
	err := s.pool.QueryRow(ctx, `WITH d AS (DELETE FROM emails WHERE inbox_hash = $1 AND id = $2 RETURNING 1)
		SELECT count(pg_notify('`+channel+`', $3)) FROM d`, k.InboxHash, k.ID, s.notice(wireEmailDeleted, k.InboxHash, k.ID)).Scan(&n)
	if err != nil {
		return s.check(err, "delete email "+k.ID)
	}
	if n == 0 {
		return fmt.Errorf("delete email %s: %w", k.ID, store.ErrNotFound)
	}
	return nil
}

// MarkRead implements store.Store.
func (s *Store) MarkRead(ctx context.Context, k store.EmailKey) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	tag, err := s.pool.Exec(ctx, "UPDATE emails SET is_read = true WHERE inbox_hash = $1 AND id = $2", k.InboxHash, k.ID)
	if err != nil {
		return s.check(err, "mark email "+k.ID+" read")
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("mark email %s read: %w", k.ID, store.ErrNotFound)
	}
	return nil
}

// SetSigned implements store.Store.
func (s *Store) SetSigned(ctx context.Context, changes []store.Signed) error {
	b := &pgx.Batch{}
	for _, c := range changes {
		var parsed, raw []byte
		if c.Parts&store.PartParsed != 0 {
			parsed = nonNil(c.Parsed)
		}
		if c.Parts&store.PartRaw != 0 {
			raw = nonNil(c.Raw)
		}
		b.Queue(`UPDATE emails SET parsed = coalesce($3, parsed), raw = coalesce($4, raw), unsigned = unsigned & ~$5::smallint,
			size = octet_length(metadata) + octet_length(coalesce($3, parsed)) + octet_length(coalesce($4, raw))
			WHERE inbox_hash = $1 AND id = $2`, c.Key.InboxHash, c.Key.ID, parsed, raw, int16(c.Parts))
	}
	if b.Len() == 0 {
		return nil
	}
	return s.check(s.sendBatch(ctx, b), "store signed payloads")
}

const (
	headColumns  = "inbox_hash, id, received_at, is_read, unsigned, metadata"
	emailColumns = headColumns + ", parsed, raw"
)

func scanEmail(row pgx.Row, withContent bool) (*store.Email, error) {
	e := &store.Email{}
	var unsigned int16
	dst := []any{&e.InboxHash, &e.ID, &e.ReceivedAt, &e.IsRead, &unsigned, &e.Metadata}
	if withContent {
		dst = append(dst, &e.Parsed, &e.Raw)
	}
	if err := row.Scan(dst...); err != nil {
		return nil, err
	}
	e.ReceivedAt = e.ReceivedAt.UTC()
	e.Unsigned = store.Parts(unsigned)
	return e, nil
}

// Email implements store.Store.
func (s *Store) Email(ctx context.Context, k store.EmailKey) (*store.Email, error) {
	if s.ctx.Err() != nil {
		return nil, store.ErrClosed
	}
	e, err := scanEmail(s.pool.QueryRow(ctx, "SELECT "+emailColumns+" FROM emails WHERE inbox_hash = $1 AND id = $2", k.InboxHash, k.ID), true)
	if err != nil {
		return nil, s.check(err, "email "+k.ID)
	}
	return e, nil
}

// Emails implements store.Store.
func (s *Store) Emails(ctx context.Context, hash string, withContent bool, page store.Page) ([]*store.Email, error) {
	if s.ctx.Err() != nil {
		return nil, store.ErrClosed
	}
	columns := headColumns
	if withContent {
		columns = emailColumns
	}
	var limit *int
	if page.Limit > 0 {
		limit = &page.Limit
	}
	rows, err := s.pool.Query(ctx, "SELECT "+columns+` FROM emails WHERE inbox_hash = $1 AND ($2 = '' OR id < $2)
		ORDER BY id DESC LIMIT $3`, hash, page.Before, limit)
	if err != nil {
		return nil, s.check(err, "list emails")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*store.Email, error) { return scanEmail(r, withContent) })
	if err != nil {
		return nil, s.check(err, "list emails")
	}
	if len(out) == 0 {
		return nil, s.inboxExists(ctx, hash)
	}
	return out, nil
}

// inboxExists returns ErrNotFound for an unknown inbox.
func (s *Store) inboxExists(ctx context.Context, hash string) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM inboxes WHERE hash = $1)", hash).Scan(&exists); err != nil {
		return s.check(err, "inbox "+hash)
	}
	if !exists {
		return fmt.Errorf("inbox %s: %w", hash, store.ErrNotFound)
	}
	return nil
}

// EmailHeads implements store.Shared.
func (s *Store) EmailHeads(ctx context.Context, keys []store.EmailKey) ([]*store.Email, error) {
	if s.ctx.Err() != nil {
		return nil, store.ErrClosed
	}
	hashes, ids := make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		hashes[i], ids[i] = k.InboxHash, k.ID
	}
	rows, err := s.pool.Query(ctx, "SELECT "+headColumns+` FROM emails
		WHERE (inbox_hash, id) IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY id`, hashes, ids)
	if err != nil {
		return nil, s.check(err, "read emails")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*store.Email, error) { return scanEmail(r, false) })
	return out, s.check(err, "read emails")
}

// IDs implements store.Store.
func (s *Store) IDs(ctx context.Context, hash string) ([]string, error) {
	if s.ctx.Err() != nil {
		return nil, store.ErrClosed
	}
	rows, err := s.pool.Query(ctx, "SELECT id FROM emails WHERE inbox_hash = $1 ORDER BY id", hash)
	if err != nil {
		return nil, s.check(err, "list email ids")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.check(err, "list email ids")
	}
	if len(out) == 0 {
		return nil, s.inboxExists(ctx, hash)
	}
	return out, nil
}

// ForEachEmail implements store.Store.
func (s *Store) ForEachEmail(ctx context.Context, fn func(store.EmailInfo) error) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	rows, err := s.pool.Query(ctx, "SELECT inbox_hash, id, size, unsigned FROM emails ORDER BY inbox_hash, id")
	if err != nil {
		return s.check(err, "list emails")
	}
	defer rows.Close()
	for rows.Next() {
		var info store.EmailInfo
		var unsigned int16
		if err := rows.Scan(&info.InboxHash, &info.ID, &info.Size, &unsigned); err != nil {
			return s.check(err, "list emails")
		}
		info.Unsigned = store.Parts(unsigned)
		if err := fn(info); err != nil {
			return err
		}
	}
	return s.check(rows.Err(), "list emails")
}
