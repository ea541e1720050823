package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"sandview/server/store"
)

// Secret implements store.Cluster.
func (s *cluster) Secret(ctx context.Context, name string, generate func() ([]byte, error)) ([]byte, bool, error) {
	if s.ctx.Err() != nil {
		return nil, false, store.ErrClosed
	}
	var value []byte
	err := s.pool.QueryRow(ctx, "SELECT value FROM secrets WHERE name = $1", name).Scan(&value)
	if err == nil {
		return value, false, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, false, s.check(err, "read secret "+name)
	}
	fresh, err := generate()
	if err != nil {
		return nil, false, err
	}
	// Replicas starting together race here: the first insert wins and
	// everyone reads the winner.
	tag, err := s.pool.Exec(ctx, "INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", name, fresh)
	if err != nil {
		return nil, false, s.check(err, "store secret "+name)
	}
	if tag.RowsAffected() == 1 {
		return fresh, true, nil
	}
	err = s.pool.QueryRow(ctx, "SELECT value FROM secrets WHERE name = $1", name).Scan(&value)
	return value, false, s.check(err, "read secret "+name)
}

// Lead implements store.Cluster: the leader holds a session advisory lock
// on a connection of its own, checked on every call.
func (s *cluster) Lead(ctx context.Context) (bool, error) {
	s.leaderMu.Lock()
	defer s.leaderMu.Unlock()
	if s.ctx.Err() != nil {
		return false, store.ErrClosed
	}
	if s.leader != nil {
		if err := s.leader.Ping(ctx); err == nil {
			return true, nil
		}
		_ = s.leader.Close(context.Background())
		s.leader = nil
		s.log.Warn("leadership lost with its database connection")
	}
	conn, err := pgx.ConnectConfig(ctx, s.connCfg)
	if err != nil {
		return false, fmt.Errorf("connect for leadership: %w", err)
	}
	var held bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", leaderLock).Scan(&held); err != nil || !held {
		_ = conn.Close(context.Background())
		return false, err
	}
	s.leader = conn
	s.log.Info("this replica leads: it expires inboxes and enforces storage limits")
	return true, nil
}

// resign gives up leadership (Close).
func (s *cluster) resign() {
	s.leaderMu.Lock()
	defer s.leaderMu.Unlock()
	if s.leader != nil {
		_ = s.leader.Close(context.Background())
		s.leader = nil
	}
}

// ExpireInboxes implements store.Cluster.
func (s *cluster) ExpireInboxes(ctx context.Context, now time.Time) ([]store.ExpiredInbox, error) {
	if s.ctx.Err() != nil {
		return nil, store.ErrClosed
	}
	var out []store.ExpiredInbox
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Locking the inboxes first makes a concurrent email insert wait
		// (and then fail): every email deleted here is reported.
		if _, err := tx.Exec(ctx, "SELECT 1 FROM inboxes WHERE expires_at <= $1 FOR UPDATE", now); err != nil {
			return err
		}
		keys, err := deleteKeys(ctx, tx, `DELETE FROM emails WHERE inbox_hash IN
			(SELECT hash FROM inboxes WHERE expires_at <= $1) RETURNING inbox_hash, id`, now)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "DELETE FROM inboxes WHERE expires_at <= $1 RETURNING "+inboxColumns, now)
		if err != nil {
			return err
		}
		inboxes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Inbox, error) { return scanInbox(r) })
		if err != nil {
			return err
		}
		ids := make(map[string][]string)
		for _, k := range keys {
			ids[k.InboxHash] = append(ids[k.InboxHash], k.ID)
		}
		gone := make([]store.EmailKey, len(inboxes))
		for i, in := range inboxes {
			slices.Sort(ids[in.Hash])
			out = append(out, store.ExpiredInbox{Inbox: in, EmailIDs: ids[in.Hash]})
			gone[i] = store.EmailKey{InboxHash: in.Hash}
		}
		return s.notifyKeys(ctx, tx, wireInbox, gone)
	})
	return out, s.check(err, "expire inboxes")
}

// EnforceLimits implements store.Cluster.
func (s *cluster) EnforceLimits(ctx context.Context, maxPerInbox int, maxBytes int64) ([]store.EmailKey, error) {
	if s.ctx.Err() != nil {
		return nil, store.ErrClosed
	}
	var victims []store.EmailKey
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if maxPerInbox > 0 {
			keys, err := deleteKeys(ctx, tx, `WITH ranked AS (
				SELECT inbox_hash, id, row_number() OVER (PARTITION BY inbox_hash ORDER BY id DESC) AS n FROM emails
				WHERE inbox_hash IN (SELECT inbox_hash FROM emails GROUP BY inbox_hash HAVING count(*) > $1))
				DELETE FROM emails e USING ranked r WHERE r.n > $1 AND e.inbox_hash = r.inbox_hash AND e.id = r.id
				RETURNING e.inbox_hash, e.id`, maxPerInbox)
			if err != nil {
				return err
			}
			victims = append(victims, keys...)
		}
		if maxBytes > 0 {
			keys, err := deleteKeys(ctx, tx, `WITH total AS (SELECT coalesce(sum(size), 0) AS bytes FROM emails),
				running AS (SELECT inbox_hash, id, size, sum(size) OVER (ORDER BY id, inbox_hash) AS upto FROM emails
					WHERE (SELECT bytes FROM total) > $1)
				DELETE FROM emails e USING running r, total t
				WHERE r.upto - r.size < t.bytes - $1 AND e.inbox_hash = r.inbox_hash AND e.id = r.id
				RETURNING e.inbox_hash, e.id`, maxBytes)
			if err != nil {
				return err
			}
			victims = append(victims, keys...)
		}
		return s.notifyKeys(ctx, tx, wireEmailDeleted, victims)
	})
	if err != nil {
		return nil, s.check(err, "enforce storage limits")
	}
	slices.SortFunc(victims, store.CompareKeys)
	return victims, nil
}

// deleteKeys runs a DELETE ... RETURNING inbox_hash, id.
func deleteKeys(ctx context.Context, tx pgx.Tx, sql string, args ...any) ([]store.EmailKey, error) {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.EmailKey, error) {
		var k store.EmailKey
		err := r.Scan(&k.InboxHash, &k.ID)
		return k, err
	})
}

// notifyKeys sends one notice per key inside tx.
func (s *cluster) notifyKeys(ctx context.Context, tx pgx.Tx, kind byte, keys []store.EmailKey) error {
	if len(keys) == 0 {
		return nil
	}
	payloads := make([]string, len(keys))
	for i, k := range keys {
		payloads[i] = s.notice(kind, k.InboxHash, k.ID)
	}
	_, err := tx.Exec(ctx, "SELECT pg_notify('"+channel+"', p) FROM unnest($1::text[]) AS p", payloads)
	return err
}

// Unsigned implements store.Cluster.
func (s *cluster) Unsigned(ctx context.Context, olderThan time.Duration, limit int) ([]store.EmailKey, error) {
	if s.ctx.Err() != nil {
		return nil, store.ErrClosed
	}
	rows, err := s.pool.Query(ctx, `SELECT inbox_hash, id FROM emails WHERE unsigned <> 0 AND stored_at < now() - $1::interval
		ORDER BY stored_at LIMIT $2`, olderThan, limit)
	if err != nil {
		return nil, s.check(err, "list unsigned emails")
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.EmailKey, error) {
		var k store.EmailKey
		err := r.Scan(&k.InboxHash, &k.ID)
		return k, err
	})
	return keys, s.check(err, "list unsigned emails")
}
