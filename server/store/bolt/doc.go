// Package bolt is the durable store.Store of a data directory: one bbolt
// file behind a write-ahead log. Every write is in the log before it
// returns (a killed process loses none), concurrent writes share one
// record and one fdatasync of the log, made before the next record, and
// the file's transaction commits at checkpoints.
package bolt
