package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"sandview/server/store"
)

// ChaosConfig implements store.ChaosStore.
func (s *chaos) ChaosConfig(ctx context.Context, hash string) ([]byte, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, "SELECT config FROM chaos_configs WHERE inbox_hash = $1", hash).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return data, s.check(err, "chaos config "+hash)
}

// PutChaosConfig implements store.ChaosStore.
func (s *chaos) PutChaosConfig(ctx context.Context, hash string, data []byte) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO chaos_configs (inbox_hash, config) VALUES ($1, $2)
		ON CONFLICT (inbox_hash) DO UPDATE SET config = EXCLUDED.config`, hash, data)
	return s.check(err, "put chaos config "+hash)
}

// GreylistAttempt implements store.ChaosStore, in one transaction.
func (s *chaos) GreylistAttempt(ctx context.Context, key string, now time.Time, window time.Duration, maxAttempts int) (int, bool, error) {
	if s.ctx.Err() != nil {
		return 0, false, store.ErrClosed
	}
	attempts, pass := 0, false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO chaos_greylist (key, first_seen, attempts) VALUES ($1, $2, 1)
			ON CONFLICT (key) DO UPDATE SET
				first_seen = CASE WHEN $2 > chaos_greylist.first_seen + make_interval(secs => $3) THEN $2 ELSE chaos_greylist.first_seen END,
				attempts = CASE WHEN $2 > chaos_greylist.first_seen + make_interval(secs => $3) THEN 1 ELSE chaos_greylist.attempts + 1 END
			RETURNING attempts`, key, now, window.Seconds()).Scan(&attempts)
		if err != nil {
			return err
		}
		if pass = attempts >= maxAttempts; pass {
			_, err = tx.Exec(ctx, "DELETE FROM chaos_greylist WHERE key = $1", key)
		}
		return err
	})
	return attempts, pass, s.check(err, "greylist attempt")
}

// SweepGreylist implements store.ChaosStore; it also keeps no more than
// store.MaxGreylistEntries, the newest.
func (s *chaos) SweepGreylist(ctx context.Context, before time.Time) error {
	b := &pgx.Batch{}
	b.Queue("DELETE FROM chaos_greylist WHERE first_seen < $1", before)
	b.Queue(`DELETE FROM chaos_greylist WHERE key IN
		(SELECT key FROM chaos_greylist ORDER BY first_seen DESC OFFSET $1)`, store.MaxGreylistEntries)
	return s.check(s.sendBatch(ctx, b), "sweep greylist")
}
