// Package store keeps the embedded sandbox server's inboxes and emails behind
// one Store interface, with two implementations: Memory (nothing survives the
// process) and Bolt (a bbolt file; every write is durable before it returns,
// and concurrent writes share one transaction and one fsync).
//
// The store holds emails exactly as the server will serve them: for a plain
// inbox the metadata and parsed JSON and the raw message in plaintext, for an
// encrypted inbox the JSON of the three sealed payloads. It knows nothing about
// encryption, limits or expiry; the server decides those.
package store
