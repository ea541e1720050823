package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"sandview/server/store"
)

// Listener tuning.
const (
	// aliveInterval is how often a listener checks its connection (and
	// reads the database's clock), idle or busy.
	aliveInterval = 2 * time.Second
	// catchUpMargin reaches back before the last moment the connection was
	// known alive: a transaction that took its stored_at earlier but
	// committed later is still caught up.
	catchUpMargin = 30 * time.Second
	maxBackoff    = 5 * time.Second
	// listenAppName names the listener's connection in pg_stat_activity.
	listenAppName = "sandview-listen"
)

// Listen implements store.Cluster. The first connection is made before it
// returns; its failure is the error.
//
// Each email stored by another replica is reported once per process:
// emails stored before the listener started are not this process's to
// report (a restarted replica does not report again what its previous run
// did); after a lost connection the catch-up reaches back from the last
// moment the connection was known alive (checked every aliveInterval)
// less catchUpMargin, and skips every email this process already
// reported, which it remembers for as long as a catch-up can reach it.
func (s *cluster) Listen(ctx context.Context, fn func(store.Notice)) error {
	l := &listener{s: s.db, fn: fn, seen: make(map[string]time.Time)}
	// Before LISTEN: what is committed now came before this listener. (An
	// email committed in the milliseconds between the two is reported
	// only by a catch-up, should one come within catchUpMargin: after
	// LISTEN an email both notified and excluded would be lost.)
	if err := l.excludeEarlier(ctx); err != nil {
		return err
	}
	conn, alive, err := s.listenConn(ctx)
	if err != nil {
		return err
	}
	l.alive, l.pinged = alive, time.Now()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.ctx, cancel)
		defer stop()
		l.run(ctx, conn)
	}()
	return nil
}

// listenConn connects, LISTENs and returns the database's clock.
func (s *db) listenConn(ctx context.Context) (*pgx.Conn, time.Time, error) {
	cfg := s.connCfg.Copy()
	cfg.RuntimeParams["application_name"] = listenAppName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("connect to listen for changes: %w", err)
	}
	var now time.Time
	if _, err = conn.Exec(ctx, "LISTEN "+channel); err == nil {
		err = conn.QueryRow(ctx, "SELECT now()").Scan(&now)
	}
	if err != nil {
		_ = conn.Close(context.Background())
		return nil, time.Time{}, fmt.Errorf("listen for changes: %w", err)
	}
	return conn, now, nil
}

// listener is one Listen loop's state.
type listener struct {
	s  *db
	fn func(store.Notice)
	// alive is the database's clock when the connection was last known
	// to work; pinged is when (this process's clock) it was read.
	alive  time.Time
	pinged time.Time
	// seen holds the emails reported (or excluded at start), by
	// "hash|id", each with a time its stored_at is not after (zero: not
	// known yet, set by the next ping). An entry is dropped once that time
	// is before any catch-up's reach.
	seen map[string]time.Time
}

// excludeEarlier marks as seen the other replicas' emails a catch-up
// could reach that are committed already.
func (l *listener) excludeEarlier(ctx context.Context) error {
	rows, err := l.s.pool.Query(ctx, `SELECT inbox_hash, id, stored_at FROM emails
		WHERE stored_at >= now() - $1::interval AND origin <> $2`, catchUpMargin, l.s.replica)
	if err != nil {
		return fmt.Errorf("listen for changes: %w", err)
	}
	missed, err := collectStored(rows)
	if err != nil {
		return fmt.Errorf("listen for changes: %w", err)
	}
	for _, m := range missed {
		l.seen[seenKey(m.key)] = m.at
	}
	return nil
}

func (l *listener) run(ctx context.Context, conn *pgx.Conn) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		if conn == nil {
			var err error
			var alive time.Time
			if conn, alive, err = l.s.listenConn(ctx); err != nil {
				if ctx.Err() == nil && backoff == 100*time.Millisecond {
					l.s.log.Error("change listener cannot reconnect; retrying with backoff", "error", err)
				}
				select {
				case <-ctx.Done():
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, maxBackoff)
				continue
			}
			backoff = 100 * time.Millisecond
			if err := l.catchUp(ctx, conn); err != nil {
				l.s.log.Warn("change listener catch-up failed; reconnecting", "error", err)
				_ = conn.Close(context.Background())
				conn = nil
				continue
			}
			l.alive, l.pinged = alive, time.Now()
			l.s.log.Info("change listener reconnected and caught up")
		}
		if err := l.wait(ctx, conn); err != nil {
			if ctx.Err() == nil {
				l.s.log.Warn("change listener lost its connection; reconnecting", "error", err)
			}
			_ = conn.Close(context.Background())
			conn = nil
		}
	}
	if conn != nil {
		_ = conn.Close(context.Background())
	}
}

// wait handles notifications until the connection fails; every
// aliveInterval, idle or busy, it checks the connection (ping).
func (l *listener) wait(ctx context.Context, conn *pgx.Conn) error {
	for {
		if time.Since(l.pinged) >= aliveInterval {
			if err := l.ping(ctx, conn); err != nil {
				return err
			}
		}
		waitCtx, cancel := context.WithTimeout(ctx, aliveInterval)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			l.handle(n.Payload)
		case ctx.Err() != nil:
			return ctx.Err()
		case !conn.PgConn().IsClosed() && (errors.Is(err, context.DeadlineExceeded) || isTimeout(err)):
			// idle: the next turn pings
		default:
			return err
		}
	}
}

// ping reads the database's clock: the connection is alive at that time,
// every email reported so far was stored before it, and what was stored
// before the reach of any later catch-up is forgotten.
func (l *listener) ping(ctx context.Context, conn *pgx.Conn) error {
	var now time.Time
	pingCtx, cancel := context.WithTimeout(ctx, aliveInterval)
	err := conn.QueryRow(pingCtx, "SELECT now()").Scan(&now)
	cancel()
	if err != nil {
		return err
	}
	l.alive, l.pinged = now, time.Now()
	reach := now.Add(-catchUpMargin)
	for key, bound := range l.seen {
		switch {
		case bound.IsZero():
			l.seen[key] = now
		case bound.Before(reach):
			delete(l.seen, key)
		}
	}
	return nil
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// handle reports one notification unless this replica sent it.
func (l *listener) handle(payload string) {
	parts := strings.SplitN(payload, "|", 4)
	if len(parts) != 4 || parts[1] == l.s.replica || len(parts[0]) != 1 {
		return
	}
	key := store.EmailKey{InboxHash: parts[2], ID: parts[3]}
	switch parts[0][0] {
	case wireEmail:
		l.email(key, time.Time{}) // stored before the next ping
	case wireEmailDeleted:
		l.fn(store.Notice{Kind: store.NoticeEmailDeleted, Key: key})
	case wireInbox:
		l.fn(store.Notice{Kind: store.NoticeInboxDeleted, Key: key})
	case wireWebhooks:
		l.fn(store.Notice{Kind: store.NoticeWebhooks})
	case wireDeliveries:
		l.fn(store.Notice{Kind: store.NoticeDeliveries})
	case wireChaos:
		l.fn(store.Notice{Kind: store.NoticeChaos, Key: store.EmailKey{InboxHash: parts[2]}, Data: []byte(parts[3])})
	}
}

// email reports a stored email once; bound is a time its stored_at is not
// after (zero: unknown yet).
func (l *listener) email(key store.EmailKey, bound time.Time) {
	id := seenKey(key)
	if _, dup := l.seen[id]; dup {
		return
	}
	l.seen[id] = bound
	l.fn(store.Notice{Kind: store.NoticeEmail, Key: key})
}

func seenKey(key store.EmailKey) string { return key.InboxHash + "|" + key.ID }

// catchUp reports a resync, then the other replicas' emails stored since
// the connection was last known alive (less the margin) that this
// process has not reported.
func (l *listener) catchUp(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT inbox_hash, id, stored_at FROM emails WHERE stored_at >= $1 AND origin <> $2
		ORDER BY stored_at, id`, l.alive.Add(-catchUpMargin), l.s.replica)
	if err != nil {
		return err
	}
	missed, err := collectStored(rows)
	if err != nil {
		return err
	}
	l.fn(store.Notice{Kind: store.NoticeResync})
	for _, m := range missed {
		l.email(m.key, m.at)
	}
	return nil
}

// storedEmail is an email's key and stored_at.
type storedEmail struct {
	key store.EmailKey
	at  time.Time
}

// collectStored reads rows of inbox_hash, id, stored_at.
func collectStored(rows pgx.Rows) ([]storedEmail, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (storedEmail, error) {
		var m storedEmail
		err := r.Scan(&m.key.InboxHash, &m.key.ID, &m.at)
		return m, err
	})
}
