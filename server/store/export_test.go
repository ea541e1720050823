package store

import (
	"log/slog"
	"time"
)

// OpenBoltWithoutIdleCheckpoint opens a Bolt store that checkpoints only
// when its log is full or at Close, so that a test can copy its files
// while the log holds every write (what a crash leaves behind).
func OpenBoltWithoutIdleCheckpoint(path string, log *slog.Logger) (*Bolt, error) {
	return openBolt(path, log, time.Hour)
}

// LogEnd is the offset in the write-ahead log file at path where its
// records end (where a torn record would begin).
func LogEnd(path string) (int64, error) {
	w, _, err := openWAL(path, slog.New(slog.DiscardHandler))
	if err != nil {
		return 0, err
	}
	defer w.close()
	return w.size, nil
}

// LogHeader is where the records of a log begin (LogEnd of an empty log).
const LogHeader = int64(walHeader)
