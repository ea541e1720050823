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
