package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"sandview/server/store"
)

// Commit implements store.EmailStore: one implicit transaction, shared
// with the commits made at the same time (commits.go), with a notice for
// each email put or deleted and the deliveries queued. When the database's
// answer is lost the commit is looked up, and made if it was not
// (outcome.go): Commit fails only when it was not made, or with
// store.ErrInDoubt when the database stayed out of reach. A batch marked
// Retry is made that way at once.
func (s *emails) Commit(ctx context.Context, batch store.Batch) error {
	if batch.Retry {
		return s.check(s.resolve(batch, store.ErrInDoubt), "commit")
	}
	b := &pgx.Batch{}
	if batch.CheckWebhooks {
		b.Queue("SELECT check_webhook_version($1)", int64(batch.WebhookVersion))
	}
	for _, k := range batch.Delete {
		b.Queue("DELETE FROM emails WHERE inbox_hash = $1 AND id = $2", k.InboxHash, k.ID)
		queueNotify(b, s.notice(wireEmailDeleted, k.InboxHash, k.ID))
	}
	for _, e := range batch.Put {
		b.Queue(insertEmail+` ON CONFLICT (inbox_hash, id) DO UPDATE SET received_at = EXCLUDED.received_at, is_read = EXCLUDED.is_read,
				unsigned = EXCLUDED.unsigned, size = EXCLUDED.size, metadata = EXCLUDED.metadata,
				parsed = EXCLUDED.parsed, raw = EXCLUDED.raw`, s.emailArgs(e)...)
		queueNotify(b, s.notice(wireEmail, e.InboxHash, e.ID))
	}
	s.queueDeliveries(b, batch.Deliveries, "")
	if b.Len() == 0 {
		return nil
	}
	return s.check(s.submit(ctx, &queuedCommit{batch: b, logical: batch}), "commit")
}

// insertEmail inserts an email (emailArgs), without its conflict clause.
const insertEmail = `INSERT INTO emails (inbox_hash, id, received_at, origin, is_read, unsigned, size, metadata, parsed, raw)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`

// emailArgs are insertEmail's arguments.
func (s *emails) emailArgs(e *store.Email) []any {
	return []any{e.InboxHash, e.ID, e.ReceivedAt, s.replica, e.IsRead, int16(e.Unsigned), e.Size(), e.Metadata, nonNil(e.Parsed), nonNil(e.Raw)}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// DeleteEmail implements store.EmailStore.
func (s *emails) DeleteEmail(ctx context.Context, k store.EmailKey) error {
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

// MarkRead implements store.EmailStore.
func (s *emails) MarkRead(ctx context.Context, k store.EmailKey) error {
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

// SetSigned implements store.EmailStore.
func (s *emails) SetSigned(ctx context.Context, changes []store.Signed) error {
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

// Email implements store.EmailStore.
func (s *emails) Email(ctx context.Context, k store.EmailKey) (*store.Email, error) {
	if s.ctx.Err() != nil {
		return nil, store.ErrClosed
	}
	e, err := scanEmail(s.pool.QueryRow(ctx, "SELECT "+emailColumns+" FROM emails WHERE inbox_hash = $1 AND id = $2", k.InboxHash, k.ID), true)
	if err != nil {
		return nil, s.check(err, "email "+k.ID)
	}
	return e, nil
}

// Emails implements store.EmailStore.
func (s *emails) Emails(ctx context.Context, hash string, withContent bool, page store.Page) ([]*store.Email, error) {
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
func (s *emails) inboxExists(ctx context.Context, hash string) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM inboxes WHERE hash = $1)", hash).Scan(&exists); err != nil {
		return s.check(err, "inbox "+hash)
	}
	if !exists {
		return fmt.Errorf("inbox %s: %w", hash, store.ErrNotFound)
	}
	return nil
}

// EmailHeads implements store.Store.
func (s *emails) EmailHeads(ctx context.Context, keys []store.EmailKey) ([]*store.Email, error) {
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

// IDs implements store.EmailStore.
func (s *emails) IDs(ctx context.Context, hash string) ([]string, error) {
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

// LastEmailID implements store.EmailStore (emails_id is an index).
func (s *emails) LastEmailID(ctx context.Context) (string, error) {
	if s.ctx.Err() != nil {
		return "", store.ErrClosed
	}
	var last *string
	if err := s.pool.QueryRow(ctx, "SELECT max(id) FROM emails").Scan(&last); err != nil {
		return "", s.check(err, "read the last email id")
	}
	if last == nil {
		return "", nil
	}
	return *last, nil
}
