// Package postgres is the PostgreSQL implementation of store.Store: the
// store that lets any number of `sandview serve` replicas share inboxes,
// emails, secrets and webhooks (github.com/jackc/pgx/v5 and its pool).
// Store is made of one type per role (inboxes, emails, webhooks, cluster)
// over one pool; concurrent email commits are gathered into one
// transaction each (commits.go), sharing a round trip and a WAL flush.
//
// Schema. Versioned migrations (migrations/NNN_name.sql, embedded) are
// applied by Open under an advisory lock, so replicas starting together
// migrate once; a database of a newer version than this binary knows is
// refused. Tables: inboxes; emails (payloads as bytea, keyed by inbox hash
// and id, with stored_at and origin for the listener's catch-up and an
// index of unsigned payloads); secrets (the signing key and the API key);
// webhooks (the engine's record, plus the enabled flag and the stats that
// every replica's deliveries update in place); webhook_deliveries (the
// delivery queue); schema_migrations.
//
// Notifications. Every write that other replicas must see sends, in its
// own transaction, a NOTIFY on channel "sandview" carrying only ids:
// "<kind>|<origin replica>|<inbox hash>|<email id>". Listen skips its own
// replica's, reconnects with backoff after a lost connection, and then
// catches up from the emails table (stored since the last moment it knew
// the connection alive, read every 2 s busy or idle, less a margin),
// skipping what this process had already reported, so that no email is
// lost or reported twice. Emails committed before a listener started are
// not its to report: a restarted replica does not repeat its previous
// run. The listener's connection is named "sandview-listen"
// (application_name) in pg_stat_activity.
//
// Commits. A commit whose answer is lost (the connection broke after it
// was sent) is looked up on another connection, made if it was not, and
// answered as made or, after a bound, ErrInDoubt (outcome.go): a commit
// reported failed was not made. The store's sessions commit with
// synchronous_commit at least local, so an answered commit outlives a
// crash of PostgreSQL.
//
// Leadership is a session advisory lock held on a dedicated connection:
// it ends with that connection. Everything the leader does is also safe
// twice (deletes report only the rows they removed), so a brief overlap of
// two leaders after a lost connection repeats no event.
package postgres
