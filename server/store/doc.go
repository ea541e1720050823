// Package store keeps the embedded sandbox server's inboxes and emails behind
// one Store interface, with three implementations: Memory (nothing survives
// the process), Bolt (a bbolt file behind a write-ahead log; every write is
// durable before it returns, and concurrent writes share one fdatasync of
// the log; the file's transaction commits at checkpoints) and, in
// store/postgres, PostgreSQL, which also implements Shared: what several
// server replicas need to share one database (secrets, webhooks and their
// delivery queue, change notices, leadership). One conformance suite runs
// against all three.
//
// The store holds emails exactly as the server will serve them: for a plain
// inbox the metadata and parsed JSON and the raw message in plaintext, for an
// encrypted inbox the JSON of the three sealed payloads. It knows nothing about
// encryption, limits or expiry; the server decides those.
package store
