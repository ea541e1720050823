package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"sandview/server/store"
)

const webhookColumns = `id, coalesce(inbox_hash, ''), seq, record, enabled, total, successful, failed,
	consecutive_failures, last_delivery_at, coalesce(last_delivery_ok, false)`

func scanWebhook(row pgx.Row) (store.WebhookRow, error) {
	var w store.WebhookRow
	var last *time.Time
	var seq int64
	err := row.Scan(&w.ID, &w.InboxHash, &seq, &w.Record, &w.Enabled, &w.Stats.Total, &w.Stats.Successful,
		&w.Stats.Failed, &w.Stats.ConsecutiveFailures, &last, &w.Stats.LastDeliveryOK)
	w.Seq = uint64(seq)
	if last != nil {
		w.Stats.LastDeliveryAt = last.UTC()
	}
	return w, err
}

// LoadWebhooks implements store.Webhooks.
func (s *webhooks) LoadWebhooks(ctx context.Context) ([]store.WebhookRow, uint64, error) {
	if s.ctx.Err() != nil {
		return nil, 0, store.ErrClosed
	}
	var version int64
	if err := s.pool.QueryRow(ctx, "SELECT v FROM webhook_version").Scan(&version); err != nil {
		return nil, 0, s.check(err, "load webhooks")
	}
	rows, err := s.pool.Query(ctx, "SELECT "+webhookColumns+" FROM webhooks ORDER BY seq")
	if err != nil {
		return nil, 0, s.check(err, "load webhooks")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.WebhookRow, error) { return scanWebhook(r) })
	return out, uint64(version), s.check(err, "load webhooks")
}

// SaveWebhook implements store.Webhooks.
func (s *webhooks) SaveWebhook(ctx context.Context, w store.WebhookRow) (uint64, error) {
	if s.ctx.Err() != nil {
		return 0, store.ErrClosed
	}
	var seq int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO webhooks (id, inbox_hash, record, enabled) VALUES ($1, nullif($2, ''), $3, $4)
			ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record, enabled = EXCLUDED.enabled,
				consecutive_failures = CASE WHEN EXCLUDED.enabled AND NOT webhooks.enabled THEN 0 ELSE webhooks.consecutive_failures END
			RETURNING seq`, w.ID, w.InboxHash, w.Record, w.Enabled).Scan(&seq)
		if err != nil {
			return err
		}
		return s.webhooksChanged(ctx, tx, w.ID)
	})
	return uint64(seq), s.check(err, "save webhook "+w.ID)
}

// DeleteWebhook implements store.Webhooks.
func (s *webhooks) DeleteWebhook(ctx context.Context, id string) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM webhooks WHERE id = $1", id); err != nil {
			return err
		}
		return s.webhooksChanged(ctx, tx, id)
	})
	return s.check(err, "delete webhook "+id)
}

// webhooksChanged counts a webhook change and tells the other replicas.
func (s *webhooks) webhooksChanged(ctx context.Context, tx pgx.Tx, id string) error {
	if _, err := tx.Exec(ctx, "UPDATE webhook_version SET v = v + 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_notify('"+channel+"', $1)", s.notice(wireWebhooks, "", id))
	return err
}

// queueDeliveries adds deliveries and their notice to a batch; onConflict
// ("" or a conflict clause) ends each insert.
func (s *db) queueDeliveries(b *pgx.Batch, ds []store.QueuedDelivery, onConflict string) {
	for _, d := range ds {
		b.Queue(`INSERT INTO webhook_deliveries (id, webhook_id, attempt, due, pending)
			VALUES ($1, $2, $3, coalesce($4, now()), $5) `+onConflict, d.ID, d.WebhookID, d.Attempt, nullTime(d.Due), d.Pending)
	}
	if len(ds) > 0 {
		queueNotify(b, s.notice(wireDeliveries, "", ""))
	}
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// EnqueueDeliveries implements store.Webhooks.
func (s *webhooks) EnqueueDeliveries(ctx context.Context, ds []store.QueuedDelivery) error {
	b := &pgx.Batch{}
	s.queueDeliveries(b, ds, "")
	if b.Len() == 0 {
		return nil
	}
	return s.check(s.sendBatch(ctx, b), "queue webhook deliveries")
}

// ClaimDeliveries implements store.Webhooks.
func (s *webhooks) ClaimDeliveries(ctx context.Context, limit int, lease time.Duration) ([]store.QueuedDelivery, time.Time, error) {
	if s.ctx.Err() != nil {
		return nil, time.Time{}, store.ErrClosed
	}
	var claimed []store.QueuedDelivery
	var next *time.Time
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if limit > 0 {
			rows, err := tx.Query(ctx, `UPDATE webhook_deliveries SET lease_until = now() + $2::interval, lease_owner = $3
				WHERE id IN (SELECT id FROM webhook_deliveries
					WHERE due <= now() AND (lease_until IS NULL OR lease_until < now())
					ORDER BY due, seq LIMIT $1 FOR UPDATE SKIP LOCKED)
				RETURNING id, webhook_id, seq, attempt, due, pending`, limit, lease, s.replica)
			if err != nil {
				return err
			}
			if claimed, err = pgx.CollectRows(rows, scanDelivery); err != nil {
				return err
			}
		}
		return tx.QueryRow(ctx, `SELECT min(greatest(due, coalesce(lease_until, due))) FROM webhook_deliveries
			WHERE lease_owner IS DISTINCT FROM $1 OR lease_until IS NULL OR lease_until < now()`, s.replica).Scan(&next)
	})
	if err != nil {
		return nil, time.Time{}, s.check(err, "claim webhook deliveries")
	}
	slices.SortFunc(claimed, func(a, b store.QueuedDelivery) int {
		if c := a.Due.Compare(b.Due); c != 0 {
			return c
		}
		return int(int64(a.Seq) - int64(b.Seq))
	})
	var nextDue time.Time
	if next != nil {
		nextDue = *next
	}
	return claimed, nextDue, nil
}

func scanDelivery(r pgx.CollectableRow) (store.QueuedDelivery, error) {
	var d store.QueuedDelivery
	var seq int64
	err := r.Scan(&d.ID, &d.WebhookID, &seq, &d.Attempt, &d.Due, &d.Pending)
	d.Seq = uint64(seq)
	return d, err
}

// ReleaseDelivery implements store.Webhooks.
func (s *webhooks) ReleaseDelivery(ctx context.Context, id string) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	_, err := s.pool.Exec(ctx, "UPDATE webhook_deliveries SET lease_until = NULL, lease_owner = NULL WHERE id = $1 AND lease_owner = $2", id, s.replica)
	if err != nil {
		return s.check(err, "release webhook delivery "+id)
	}
	// Another replica may take it now.
	_, err = s.pool.Exec(ctx, "SELECT pg_notify('"+channel+"', $1)", s.notice(wireDeliveries, "", ""))
	return s.check(err, "release webhook delivery "+id)
}

// DropDelivery implements store.Webhooks.
func (s *webhooks) DropDelivery(ctx context.Context, id string) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	_, err := s.pool.Exec(ctx, "DELETE FROM webhook_deliveries WHERE id = $1 AND lease_owner = $2", id, s.replica)
	return s.check(err, "drop webhook delivery "+id)
}

// FinishAttempt implements store.Webhooks. Only the replica holding the
// delivery's claim counts the attempt: one whose claim lapsed and was taken
// over changes nothing.
func (s *webhooks) FinishAttempt(ctx context.Context, a store.Attempt) (store.WebhookRow, bool, error) {
	if s.ctx.Err() != nil {
		return store.WebhookRow{}, false, store.ErrClosed
	}
	d := a.Delivery
	var row store.WebhookRow
	found := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var owned bool
		err := tx.QueryRow(ctx, "SELECT lease_owner = $2 FROM webhook_deliveries WHERE id = $1 FOR UPDATE", d.ID, s.replica).Scan(&owned)
		if err == pgx.ErrNoRows {
			owned = false
		} else if err != nil {
			return err
		}
		final := true
		if owned && !a.RetryAt.IsZero() {
			tag, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET attempt = attempt + 1, due = $2, lease_until = NULL, lease_owner = NULL
				WHERE id = $1 AND (SELECT count(*) FROM webhook_deliveries WHERE webhook_id = $3 AND attempt > 1 AND id <> $1) < $4`,
				d.ID, a.RetryAt, d.WebhookID, a.MaxRetries)
			if err != nil {
				return err
			}
			final = tag.RowsAffected() == 0
		}
		if owned && final {
			if _, err := tx.Exec(ctx, "DELETE FROM webhook_deliveries WHERE id = $1", d.ID); err != nil {
				return err
			}
		}
		query := "SELECT " + webhookColumns + " FROM webhooks WHERE id = $1"
		args := []any{d.WebhookID}
		if owned {
			query = `UPDATE webhooks SET last_delivery_at = $2, last_delivery_ok = $3,
				total = total + CASE WHEN $4 THEN 1 ELSE 0 END,
				successful = successful + CASE WHEN $3 THEN 1 ELSE 0 END,
				failed = failed + CASE WHEN $4 AND NOT $3 THEN 1 ELSE 0 END,
				consecutive_failures = CASE WHEN $3 THEN 0 WHEN $4 THEN consecutive_failures + 1 ELSE consecutive_failures END,
				enabled = enabled AND NOT ($4 AND NOT $3 AND consecutive_failures + 1 >= $5)
				WHERE id = $1 RETURNING ` + webhookColumns
			args = append(args, a.At, a.OK, final, a.DisableAfter)
		}
		row, err = scanWebhook(tx.QueryRow(ctx, query, args...))
		if err == pgx.ErrNoRows {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		return store.WebhookRow{}, false, fmt.Errorf("record webhook attempt: %w", s.check(err, d.ID))
	}
	return row, found, nil
}
