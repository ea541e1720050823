package bolt

import (
	"fmt"
	"time"

	"sandview/server/store"
)

// commitLoop takes the first waiting write, gathers every other write
// already queued, and commits them together; it syncs the log when its
// oldest record not yet synced is syncEvery old, and checkpoints when the
// log has grown, writes have paused or a read waits, and at Close.
func (b *Store) commitLoop() {
	defer close(b.done)
	group := make([]*writeRequest, 0, maxGroup)
	idle := time.NewTimer(b.idle)
	idle.Stop()
	defer idle.Stop()
	syncDue := time.NewTimer(b.syncEvery)
	syncDue.Stop()
	defer syncDue.Stop()
	syncArmed := false
	for {
		select {
		case <-b.closing:
			b.failQueued()
			b.checkpoint()
			return
		case <-idle.C:
			b.checkpoint()
		case <-syncDue.C:
			syncArmed = false
			b.syncLog()
		case settled := <-b.settles:
			b.checkpoint()
			settled <- b.broken
		case first := <-b.requests:
			group = append(group[:0], first)
		gather:
			for len(group) < maxGroup {
				select {
				case r := <-b.requests:
					group = append(group, r)
				default:
					break gather
				}
			}
			b.commitGroup(group)
			if b.wal.length() >= checkpointBytes {
				b.checkpoint()
			}
			if b.tx != nil {
				idle.Reset(b.idle)
			}
			if since := b.wal.unsynced; !syncArmed && !since.IsZero() {
				syncDue.Reset(b.syncEvery - time.Since(since))
				syncArmed = true
			}
		}
	}
}

// checkpoint commits the open transaction and empties the log, unless
// writes have stopped; a failure stops them (the log keeps every change
// since the last checkpoint, which a restart replays).
func (b *Store) checkpoint() {
	if b.broken != nil || b.tx == nil {
		return
	}
	tx := b.tx
	b.tx, b.pending = nil, nil
	err := tx.Commit()
	if err == nil {
		b.dirty.Store(false)
		err = b.wal.reset()
	}
	if err != nil {
		b.stop(fmt.Errorf("checkpoint: %w", err))
	}
}

// stop stops writes after a failure that may leave the file and the log
// apart (only a restart, replaying the log, brings them together).
func (b *Store) stop(err error) {
	if b.tx != nil {
		_ = b.tx.Rollback()
		b.tx, b.pending = nil, nil
	}
	b.broken = err
	b.log.Error("store: writes stopped", "err", err)
}

func (b *Store) failQueued() {
	for {
		select {
		case r := <-b.requests:
			r.done <- store.ErrClosed
		default:
			return
		}
	}
}

// commitGroup makes the group's writes in the open transaction and
// appends their changes to the log before it answers: a killed process
// loses no answered write (the kernel holds the record), which is synced
// later (see syncLog). A write that fails halfway
// takes the transaction back to the records before the group (the
// group's writes fail, nothing else does); a failure of the append or the
// sync may leave a record the file lacks (a restart replays it), so
// writes stop.
func (b *Store) commitGroup(group []*writeRequest) {
	if b.broken != nil {
		for _, r := range group {
			r.done <- fmt.Errorf("commit: %w", b.broken)
		}
		return
	}
	err := b.apply(group)
	for _, r := range group {
		if err != nil {
			r.done <- fmt.Errorf("commit: %w", err)
			continue
		}
		r.done <- r.result
	}
}

// syncLog puts the log's records not yet synced on disk; a failure stops
// writes (the file and the log may disagree after a power cut).
func (b *Store) syncLog() {
	if b.broken != nil {
		return
	}
	if err := b.wal.sync(); err != nil {
		b.stop(err)
	}
}

// apply makes the group's writes in the open transaction (begun if there
// is none) and logs them.
func (b *Store) apply(group []*writeRequest) error {
	if b.tx == nil {
		tx, err := b.db.Begin(true)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		b.tx = tx
		b.dirty.Store(true)
	}
	// The record is built after room for its frame header.
	c := &changes{tx: b.tx, record: append(b.record[:0], make([]byte, walFrameHeader)...)}
	defer func() {
		if cap(c.record) <= maxKeptRecord {
			b.record = c.record[:0]
		}
	}()
	for _, r := range group {
		r.result = nil
		if !r.state.CompareAndSwap(requestQueued, requestTaken) {
			continue // its caller gave up waiting
		}
		if r.check != nil {
			if r.result = r.check(b.tx); r.result != nil {
				continue
			}
		}
		if err := r.apply(c); err != nil {
			b.rewind()
			return err
		}
	}
	if len(c.record) == walFrameHeader { // nothing changed
		if len(b.pending) == 0 { // nor before: no checkpoint needed
			_ = b.tx.Rollback()
			b.tx = nil
			b.dirty.Store(false)
		}
		return nil
	}
	if err := b.wal.append(c.record, time.Now()); err != nil {
		b.stop(err)
		return err
	}
	b.pending = append(b.pending, append([]byte(nil), c.record[walFrameHeader:]...))
	return nil
}

// rewind takes the open transaction back to the records logged before:
// it is rolled back and they are made again in a new one.
func (b *Store) rewind() {
	_ = b.tx.Rollback()
	b.tx = nil
	tx, err := b.db.Begin(true)
	if err == nil {
		if err = replayInto(tx, b.pending); err != nil {
			_ = tx.Rollback()
		}
	}
	if err != nil {
		b.stop(fmt.Errorf("rewind after a failed write: %w", err))
		return
	}
	b.tx = tx
}
