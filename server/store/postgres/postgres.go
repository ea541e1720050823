package postgres

import (
	"cmp"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"sandview/server/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Advisory lock keys ("sandview" in ASCII, and the next number).
const (
	migrationLock int64 = 0x73616e6476696577
	leaderLock          = migrationLock + 1
)

// channel is the NOTIFY channel of every notice.
const channel = "sandview"

// Store is a store.Store on PostgreSQL, shared by replicas, made of one type per role over
// one connection pool: inboxes, emails, webhooks and cluster (secrets,
// change notices, leadership and the leader's work). Create it with Open.
type Store struct {
	*db
	*inboxes
	*emails
	*webhooks
	*cluster
	*chaos
}

// db is what every role shares: the pool and this replica's identity.
type db struct {
	pool    *pgxpool.Pool
	connCfg *pgx.ConnConfig // for the listener's and the leader's own connections
	log     *slog.Logger
	// replica names this process in notifications and the origin column.
	replica string
	// lookupTimeout bounds the lookup of a commit whose answer was lost.
	lookupTimeout time.Duration

	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // listeners and committers
}

// The roles, each implementing its part of store.Store.
type (
	inboxes struct{ *db }
	emails  struct {
		*db
		queue   chan *queuedCommit // Commit calls for the committers
		stopped chan struct{}      // closed when the committers have ended
	}
	webhooks struct{ *db }
	chaos    struct{ *db }
	cluster  struct {
		*db
		leaderMu sync.Mutex
		leader   *pgx.Conn // held while this replica leads
	}
)

var (
	_ store.Store      = (*Store)(nil)
	_ store.InboxStore = (*inboxes)(nil)
	_ store.EmailStore = (*emails)(nil)
	_ store.Webhooks   = (*webhooks)(nil)
	_ store.Cluster    = (*cluster)(nil)
	_ store.ChaosStore = (*chaos)(nil)
)

// ErrNewerSchema refuses a database migrated by a newer sandview.
var ErrNewerSchema = errors.New("the database's schema is newer than this sandview knows: upgrade sandview")

// Describe renders a store URL for people: without its password, or a
// placeholder when it does not parse.
func Describe(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "postgres (URL not shown)"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	u.RawQuery = ""
	return u.String()
}

// Options tune OpenWith.
type Options struct {
	// Log receives the store's log lines (nil: none).
	Log *slog.Logger
	// LookupTimeout bounds the lookup of a commit whose answer was lost
	// (outcome.go); 0 is a minute.
	LookupTimeout time.Duration
}

// Open is OpenWith with the default options and log.
func Open(ctx context.Context, rawURL string, log *slog.Logger) (*Store, error) {
	return OpenWith(ctx, rawURL, Options{Log: log})
}

// OpenWith connects to the database at rawURL (postgres://USER[:PASSWORD]@HOST:PORT/DB,
// pgx pool parameters such as pool_max_conns allowed) and applies the
// migrations it lacks. Errors name the server, never the password.
func OpenWith(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	log := opts.Log
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return nil, errors.New("store URL: want postgres://USER[:PASSWORD]@HOST:PORT/DATABASE")
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store URL %s: %w", Describe(rawURL), err)
	}
	if !u.Query().Has("pool_max_conns") {
		cfg.MaxConns = int32(max(16, 4*runtime.GOMAXPROCS(0)))
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.AfterConnect = durableCommits
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open PostgreSQL store %s: %w", Describe(rawURL), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL at %s: %s", Describe(rawURL), lastAttempt(err))
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("PostgreSQL store %s: %w", Describe(rawURL), err)
	}
	var id [6]byte
	_, _ = rand.Read(id[:])
	d := &db{pool: pool, connCfg: cfg.ConnConfig, log: log, replica: hex.EncodeToString(id[:]), lookupTimeout: cmp.Or(opts.LookupTimeout, defaultLookupTimeout)}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	em := &emails{db: d, queue: make(chan *queuedCommit, maxCommitGroup), stopped: make(chan struct{})}
	em.startCommitters()
	return &Store{db: d, inboxes: &inboxes{d}, emails: em, webhooks: &webhooks{d}, cluster: &cluster{db: d}, chaos: &chaos{d}}, nil
}

// durableCommits keeps a session's commits on disk before they are
// answered: with synchronous_commit off a crash of PostgreSQL (an immediate
// restart) loses commits it has answered, so a mail acknowledged with 250,
// and announced, would be gone. A stronger setting (on, remote_write,
// remote_apply) is kept; off becomes local.
func durableCommits(ctx context.Context, conn *pgx.Conn) error {
	var setting string
	if err := conn.QueryRow(ctx, "SHOW synchronous_commit").Scan(&setting); err != nil {
		return fmt.Errorf("read synchronous_commit: %w", err)
	}
	if setting != "off" {
		return nil
	}
	if _, err := conn.Exec(ctx, "SET synchronous_commit TO local"); err != nil {
		return fmt.Errorf("set synchronous_commit: %w", err)
	}
	return nil
}

// lastAttempt is the reason of a failed connection on one line: pgx
// reports each address and TLS mode it tried on a line of its own, and the
// last is the one that explains.
func lastAttempt(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// migration is one embedded schema step.
type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		prefix, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if err != nil {
			return nil, fmt.Errorf("migration %s has no version number", e.Name())
		}
		data, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(data)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	return out, nil
}

// SchemaVersion is the newest schema version this binary knows.
func SchemaVersion() int {
	all, err := migrations()
	if err != nil || len(all) == 0 {
		return 0
	}
	return all[len(all)-1].version
}

// migrate applies the missing migrations, each in its own transaction,
// holding an advisory lock so that concurrent replicas take turns.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	all, err := migrations()
	if err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("migrate: take the migration lock: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", migrationLock) }()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("migrate: read the schema version: %w", err)
	}
	if known := all[len(all)-1].version; current > known {
		return fmt.Errorf("schema version %d, this sandview knows up to %d: %w", current, known, ErrNewerSchema)
	}
	for _, m := range all {
		if m.version <= current {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("apply migration %s: %w", m.name, err)
		}
	}
	return nil
}

// Ping implements store.Store.
func (s *cluster) Ping(ctx context.Context) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping PostgreSQL: %w", err)
	}
	return nil
}

// Close implements store.Store: it stops the listeners, gives up
// leadership and closes the pool.
func (s *Store) Close() error {
	if s.ctx.Err() != nil {
		return nil
	}
	s.cancel()
	s.wg.Wait()
	s.resign()
	s.pool.Close()
	return nil
}

// check maps errors: a closed store, a missing row or parent, a taken
// unique key.
func (s *db) check(err error, what string) error {
	if err == nil {
		return nil
	}
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, store.ErrNotFound)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23503": // foreign_key_violation
			return fmt.Errorf("%s: inbox: %w", what, store.ErrNotFound)
		case "23505": // unique_violation
			return fmt.Errorf("%s: %w", what, store.ErrConflict)
		case "SV001": // check_webhook_version
			return fmt.Errorf("%s: %w", what, store.ErrStale)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// notice builds a notification payload of this replica.
func (s *db) notice(kind byte, hash, id string) string {
	return string(kind) + "|" + s.replica + "|" + hash + "|" + id
}

// Notice kinds on the wire.
const (
	wireEmail        = 'e'
	wireEmailDeleted = 'x'
	wireInbox        = 'i'
	wireWebhooks     = 'w'
	wireDeliveries   = 'q'
	wireChaos        = 'c'
)

// queueNotify adds a NOTIFY to a batch.
func queueNotify(b *pgx.Batch, payload string) {
	b.Queue("SELECT pg_notify('"+channel+"', $1)", payload)
}

// sendBatch runs a batch as one implicit transaction (one round trip).
func (s *db) sendBatch(ctx context.Context, b *pgx.Batch) error {
	if s.ctx.Err() != nil {
		return store.ErrClosed
	}
	return s.pool.SendBatch(ctx, b).Close()
}
