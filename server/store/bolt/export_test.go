package bolt

import (
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// OpenWithoutIdleCheckpoint opens a store that checkpoints only
// when its log is full or at Close, so that a test can copy its files
// while the log holds every write (what a crash leaves behind).
func OpenWithoutIdleCheckpoint(path string, log *slog.Logger) (*Store, error) {
	return open(path, log, time.Hour, logSyncEvery, fdatasync)
}

// OpenWatchingLogSyncs is OpenWithoutIdleCheckpoint whose log records
// wait up to syncEvery for their sync, which goes through syncData (it
// calls sync to sync the file).
func OpenWatchingLogSyncs(path string, syncEvery time.Duration, syncData func(f *os.File, sync func(*os.File) error) error) (*Store, error) {
	return open(path, nil, time.Hour, syncEvery, func(f *os.File) error { return syncData(f, fdatasync) })
}

// LogEnd is the offset in the write-ahead log file at path where its
// records end (where a torn record would begin). It only reads the file.
func LogEnd(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if len(data) < walHeader {
		return 0, fmt.Errorf("a log of %d bytes", len(data))
	}
	_, end, _ := parseWAL(data[walHeader:], binary.LittleEndian.Uint64(data[len(walMagic):]))
	return int64(walHeader + end), nil
}

// LogHeader is where the records of a log begin (LogEnd of an empty log).
const LogHeader = int64(walHeader)

// CheckpointBytes is how large the log grows before a checkpoint.
const CheckpointBytes = checkpointBytes

// LogRecords is how many records the write-ahead log at path holds.
func LogRecords(path string) (int, error) {
	starts, err := LogRecordStarts(path)
	return len(starts), err
}

// LogRecordStarts is the offset of each record in the write-ahead log at
// path.
func LogRecordStarts(path string) ([]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < walHeader {
		return nil, nil
	}
	records, _, _ := parseWAL(data[walHeader:], binary.LittleEndian.Uint64(data[len(walMagic):]))
	starts := make([]int64, len(records))
	at := int64(walHeader)
	for i, r := range records {
		starts[i] = at
		at += int64(walFrameHeader + len(r))
	}
	return starts, nil
}
