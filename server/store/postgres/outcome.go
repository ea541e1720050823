package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"sandview/server/store"
)

// A commit whose answer is lost (the connection broke after its last
// statement was sent, e.g. in an immediate restart of PostgreSQL) may or
// may not have been made. Answering it as failed would make a sender retry
// a mail that is stored, and leave this replica's subscribers without the
// event the others got. So such a commit is looked up on another
// connection, by inserting its emails again without overwriting: an insert
// of a key that another transaction is still writing waits for that
// transaction's end, so the lookup sees the lost commit's true outcome.
// When none of its emails were new the lost commit was made; otherwise
// the lookup's own transaction makes it, with its notices, and the retry's
// answer may be lost again, which the next lookup finds.
const (
	// defaultLookupTimeout bounds the lookup (Options.LookupTimeout):
	// past it the commit is reported in doubt (store.ErrInDoubt). An SMTP
	// client waits 10 minutes for the answer to its message (RFC 5321
	// 4.5.3.2.6); PostgreSQL's immediate restart takes seconds.
	defaultLookupTimeout = time.Minute
	// commitTimeout bounds one commit's round trip: a connection that
	// hangs (a peer gone without a word) is given up, and the commit
	// looked up like one whose answer was lost.
	commitTimeout = time.Minute
	// resolvePause is the first pause between lookups, doubled up to
	// maxResolvePause.
	resolvePause    = 50 * time.Millisecond
	maxResolvePause = time.Second
)

// errAnswerLost marks a commit whose answer was lost.
var errAnswerLost = errors.New("the database's answer to the commit was lost")

// runCommit sends a commit's statements as one implicit transaction. Its
// error wraps errAnswerLost when the commit may have been made; any other
// error means it was not.
func (s *emails) runCommit(ctx context.Context, b *pgx.Batch) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, commitTimeout)
	defer cancel()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err // nothing was sent
	}
	defer conn.Release()
	results := conn.SendBatch(ctx, b)
	answered := 0
	for range b.Len() {
		if _, err = results.Exec(); err != nil {
			break
		}
		answered++
	}
	if closeErr := results.Close(); err == nil {
		err = closeErr
	}
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case pgconn.SafeToRetry(err):
		return err // nothing was sent
	case answered < b.Len() && errors.As(err, &pgErr):
		// The server refused a statement, or ended the connection,
		// before the transaction's end: the statements are answered in
		// order, the commit after the last.
		return err
	case answered == b.Len() && errors.As(err, &pgErr) && !transient(pgErr):
		return err // the commit itself was refused
	}
	return fmt.Errorf("%w: %w", errAnswerLost, err)
}

// transient reports whether a server error is one of a lost or ending
// connection, or of a transaction the server rolled back on its own,
// rather than a refusal of the statements.
func transient(e *pgconn.PgError) bool {
	switch e.Code[:2] {
	case "08", // connection exception
		"40", // transaction rollback (serialization failure, deadlock)
		"53", // insufficient resources
		"57", // operator intervention (shutdown, terminated, cannot connect now)
		"58", // system error
		"XX": // internal error
		return true
	}
	return false
}

// resolve finds out whether a commit whose answer was lost was made, and
// makes it when it was not (see above). It returns nil once the commit is
// made, the server's refusal when the commit was not made and cannot be,
// and store.ErrInDoubt when the database stays out of reach for
// its lookupTimeout.
func (s *emails) resolve(b store.Batch, cause error) error {
	ctx, cancel := s.lookupContext()
	defer cancel()
	return s.resolveBy(ctx, b, cause)
}

// lookupContext bounds lookups: those of a group share one bound.
func (s *emails) lookupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, s.lookupTimeout)
}

// resolveBy is resolve within ctx.
func (s *emails) resolveBy(ctx context.Context, b store.Batch, cause error) error {
	s.log.Warn("the database's answer to a commit was lost; looking it up", "error", cause)
	pause := resolvePause
	for {
		err := s.commitAgain(ctx, b)
		var pgErr *pgconn.PgError
		if err == nil || (errors.As(err, &pgErr) && !transient(pgErr)) {
			return err
		}
		if ctx.Err() != nil {
			s.log.Error("a commit's outcome is unknown: the database stayed out of reach", "error", err)
			return fmt.Errorf("%w: %w", store.ErrInDoubt, cause)
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, maxResolvePause)
	}
}

// commitAgain makes a commit in a transaction of its own unless it was made
// already: it inserts the emails without overwriting (each notice sent only
// for an email inserted), and when none is new the commit was made, so the
// rest is not repeated. A commit of deletions and deliveries only is
// repeated idempotently: deletions notify only the rows they remove, and
// deliveries already queued are kept.
func (s *emails) commitAgain(ctx context.Context, b store.Batch) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		fresh := len(b.Put) == 0
		for _, e := range b.Put {
			var n int
			args := append(s.emailArgs(e), s.notice(wireEmail, e.InboxHash, e.ID))
			err := tx.QueryRow(ctx, `WITH put AS (`+insertEmail+` ON CONFLICT (inbox_hash, id) DO NOTHING RETURNING 1)
				SELECT count(pg_notify('`+channel+`', $11)) FROM put`, args...).Scan(&n)
			if err != nil {
				return err
			}
			fresh = fresh || n > 0
		}
		if !fresh {
			return nil // the lost commit was made
		}
		rest := &pgx.Batch{}
		if b.CheckWebhooks {
			rest.Queue("SELECT check_webhook_version($1)", int64(b.WebhookVersion))
		}
		for _, k := range b.Delete {
			rest.Queue(`WITH d AS (DELETE FROM emails WHERE inbox_hash = $1 AND id = $2 RETURNING 1)
				SELECT count(pg_notify('`+channel+`', $3)) FROM d`, k.InboxHash, k.ID, s.notice(wireEmailDeleted, k.InboxHash, k.ID))
		}
		s.queueDeliveries(rest, b.Deliveries, "ON CONFLICT (id) DO NOTHING")
		if rest.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, rest).Close()
	})
}
