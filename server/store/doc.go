// Package store is what the embedded sandbox server keeps, as interfaces
// and types: one Store interface for inboxes, emails, webhooks and their
// delivery queue and chaos state, and Shared for what several server
// replicas need besides to share one database (secrets, change notices,
// leadership). The
// implementations are its subpackages: memory (nothing survives the
// process), bolt (a bbolt file behind a write-ahead log) and postgres
// (which also implements Shared). One conformance suite, storetest, runs
// against all three.
//
// The store holds emails exactly as the server will serve them: for a plain
// inbox the metadata and parsed JSON and the raw message in plaintext, for an
// encrypted inbox the JSON of the three sealed payloads. It knows nothing about
// encryption, limits or expiry; the server decides those.
package store
