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
	// aliveInterval is how often an idle listener checks its connection.
	aliveInterval = 2 * time.Second
	// catchUpMargin reaches back before the last moment the connection was
	// known alive: a transaction that took its stored_at earlier but
	// committed later is still caught up.
	catchUpMargin = 30 * time.Second
	// seenRetention is how long a reported email is remembered, so that a
	// catch-up does not report it again.
	seenRetention = 2 * catchUpMargin
	maxBackoff    = 5 * time.Second
)

// Listen implements store.Shared. The first connection is made before it
// returns; its failure is the error.
func (s *Store) Listen(ctx context.Context, fn func(store.Notice)) error {
	conn, alive, err := s.listenConn(ctx)
	if err != nil {
		return err
	}
	l := &listener{s: s, fn: fn, seen: make(map[string]time.Time), alive: alive}
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
func (s *Store) listenConn(ctx context.Context) (*pgx.Conn, time.Time, error) {
	conn, err := pgx.ConnectConfig(ctx, s.connCfg)
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
	s  *Store
	fn func(store.Notice)
	// alive is the database's clock when the connection was last known
	// to work.
	alive time.Time
	// seen holds the emails reported, by "hash|id", with when.
	seen map[string]time.Time
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
			l.alive = alive
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

// wait handles notifications until the connection fails; when idle it
// checks the connection and forgets old reported emails.
func (l *listener) wait(ctx context.Context, conn *pgx.Conn) error {
	for {
		waitCtx, cancel := context.WithTimeout(ctx, aliveInterval)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			l.handle(n.Payload)
		case ctx.Err() != nil:
			return ctx.Err()
		case !conn.PgConn().IsClosed() && (errors.Is(err, context.DeadlineExceeded) || isTimeout(err)):
			var now time.Time
			pingCtx, cancel := context.WithTimeout(ctx, aliveInterval)
			err := conn.QueryRow(pingCtx, "SELECT now()").Scan(&now)
			cancel()
			if err != nil {
				return err
			}
			l.alive = now
			for key, at := range l.seen {
				if time.Since(at) > seenRetention {
					delete(l.seen, key)
				}
			}
		default:
			return err
		}
	}
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
		l.email(key, time.Now())
	case wireEmailDeleted:
		l.fn(store.Notice{Kind: store.NoticeEmailDeleted, Key: key})
	case wireInbox:
		l.fn(store.Notice{Kind: store.NoticeInboxDeleted, Key: key})
	case wireWebhooks:
		l.fn(store.Notice{Kind: store.NoticeWebhooks})
	case wireDeliveries:
		l.fn(store.Notice{Kind: store.NoticeDeliveries})
	}
}

// email reports a stored email once.
func (l *listener) email(key store.EmailKey, at time.Time) {
	id := key.InboxHash + "|" + key.ID
	if _, dup := l.seen[id]; dup {
		return
	}
	l.seen[id] = at
	l.fn(store.Notice{Kind: store.NoticeEmail, Key: key})
}

// catchUp reports a resync, then the other replicas' emails stored since
// the connection was last known alive (less the margin).
func (l *listener) catchUp(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT inbox_hash, id, stored_at FROM emails WHERE stored_at >= $1 AND origin <> $2
		ORDER BY stored_at, id`, l.alive.Add(-catchUpMargin), l.s.replica)
	if err != nil {
		return err
	}
	type stored struct {
		key store.EmailKey
		at  time.Time
	}
	missed, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (stored, error) {
		var m stored
		err := r.Scan(&m.key.InboxHash, &m.key.ID, &m.at)
		return m, err
	})
	if err != nil {
		return err
	}
	l.fn(store.Notice{Kind: store.NoticeResync})
	for _, m := range missed {
		l.email(m.key, time.Now())
	}
	return nil
}
