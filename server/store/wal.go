package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// The write-ahead log of a Bolt store (the bbolt file's name + ".wal")
// holds the changes committed since the last checkpoint, one record per
// group commit: a little-endian uint32 payload length, the CRC-32C of the
// payload, then the payload, a sequence of changes (see changes). A write
// is acknowledged once its record is appended and fdatasync'd; the bbolt
// file, opened NoSync, is synced at the checkpoint, which then empties
// the log. Opening the store replays the log into the file: each change
// puts or deletes one key's final value, so replaying a record the file
// already holds changes nothing.
type wal struct {
	path string
	dir  string
	file *os.File // nil until the first record: a fresh store creates no log
	size int64
	log  *slog.Logger
}

const walFrameHeader = 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// openWAL opens the log at path, if there is one, and returns the records
// it holds. A record cut short or failing its checksum ends the log: it
// is the last one, whose append never finished, so it was never
// acknowledged; it is dropped with a log line.
func openWAL(path string, log *slog.Logger) (*wal, [][]byte, error) {
	w := &wal{path: path, dir: filepath.Dir(path), log: log}
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		return w, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open write-ahead log: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read write-ahead log: %w", err)
	}
	records, valid := parseWAL(data)
	if valid < int64(len(data)) {
		log.Warn("store: dropping a torn record at the end of the write-ahead log (its write was never acknowledged)",
			"log", path, "offset", valid, "bytes", int64(len(data))-valid, "records kept", len(records))
	}
	w.file, w.size = f, int64(len(data))
	return w, records, nil
}

// parseWAL splits a log into its record payloads, up to the first one cut
// short or failing its checksum, and returns the length of the valid part.
func parseWAL(data []byte) (records [][]byte, valid int64) {
	rest := data
	for len(rest) >= walFrameHeader {
		n := binary.LittleEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-walFrameHeader) {
			break
		}
		payload := rest[walFrameHeader : walFrameHeader+int(n)]
		if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(rest[4:]) {
			break
		}
		records = append(records, payload)
		rest = rest[walFrameHeader+int(n):]
	}
	return records, int64(len(data) - len(rest))
}

// append writes one record and waits until it is on disk.
func (w *wal) append(payload []byte) error {
	if w.file == nil {
		if err := w.create(); err != nil {
			return err
		}
	}
	frame := make([]byte, walFrameHeader, walFrameHeader+len(payload))
	binary.LittleEndian.PutUint32(frame, uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[4:], crc32.Checksum(payload, castagnoli))
	frame = append(frame, payload...)
	if _, err := w.file.WriteAt(frame, w.size); err != nil {
		return fmt.Errorf("append to write-ahead log: %w", err)
	}
	if err := w.file.Sync(); err != nil {
		return fmt.Errorf("sync write-ahead log: %w", err)
	}
	w.size += int64(len(frame))
	return nil
}

// create makes the log file (0600) and syncs its directory, so that the
// records later synced into it are found after a crash.
func (w *wal) create() error {
	f, err := os.OpenFile(w.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create write-ahead log: %w", err)
	}
	d, err := os.Open(w.dir)
	if err == nil {
		err = d.Sync()
		d.Close()
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("create write-ahead log: sync directory: %w", err)
	}
	w.file = f
	return nil
}

// reset empties the log once the bbolt file holds (durably) every change
// in it. The empty length is synced before new records are appended, so
// that an old record can never be read after a newer one.
func (w *wal) reset() error {
	if w.file == nil || w.size == 0 {
		return nil
	}
	if err := w.file.Truncate(0); err != nil {
		return fmt.Errorf("empty write-ahead log: %w", err)
	}
	if err := w.file.Sync(); err != nil {
		return fmt.Errorf("empty write-ahead log: %w", err)
	}
	w.size = 0
	return nil
}

func (w *wal) close() error {
	if w.file == nil {
		return nil
	}
	return w.file.Close()
}
