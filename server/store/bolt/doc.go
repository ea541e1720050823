// Package bolt is the durable store.Store of a data directory: one bbolt
// file behind a write-ahead log. Every write is in the log before it
// returns (a killed process loses none), concurrent writes share one
// record, the records written within a second share one fdatasync of the
// log, and the file's transaction commits at checkpoints.
package bolt
