// Package bolt is the durable store.Store of a data directory: one bbolt
// file behind a write-ahead log. Every write is durable before it returns,
// concurrent writes share one fdatasync of the log, and the file's
// transaction commits at checkpoints.
package bolt
