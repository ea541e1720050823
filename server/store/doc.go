// Package store is what the embedded sandbox server keeps, as interfaces
// and types: one Store interface for inboxes, emails, webhooks and their
// delivery queue and chaos state, with what several server replicas need
// to share one database (Feed: change notices; Cluster: secrets,
// leadership and the leader's work: expiry, storage limits, orphaned
// signatures). The implementations are its subpackages: memory (nothing
// survives the process), bolt (a bbolt file behind a write-ahead log) and
// postgres (shared by replicas); memory and bolt have one process, which
// always leads (Solo). One conformance suite, storetest, runs against all
// three.
//
// The store holds emails exactly as the server will serve them: for a plain
// inbox the metadata and parsed JSON and the raw message in plaintext, for an
// encrypted inbox the JSON of the three sealed payloads. It knows nothing about
// encryption; the server decides the limits and when to expire, and the
// store carries them out (Cluster).
package store
