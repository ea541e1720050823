package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"
)

// The write-ahead log of a Store (the bbolt file's name + ".wal")
// holds the changes committed since the last checkpoint, one record per
// group commit. A write is acknowledged once its record is written (in
// the kernel's cache, which a killed process does not lose); the records
// are fdatasync'd together within logSyncEvery of the first not yet on
// disk (bolt.go), and the bbolt transaction holding the writes since the
// last checkpoint commits (synced) at the next, which then empties the
// log. Opening the store replays the log into the
// file: each change puts or deletes one key's final value, so replaying a
// record the file already holds changes nothing.
//
// Layout: a header (walMagic, then the epoch, a little-endian uint64),
// then records, each a frame header (payload length as a little-endian
// uint32, the CRC-32C of the epoch and the payload, the epoch) and the
// payload, a sequence of changes (see changes). Each write ends with a
// zero frame header, where the log ends until the next record overwrites
// it. The file is kept filled with zeros ahead of the records, walChunk at
// a time, so that a record overwrites blocks the file already has and its
// fdatasync writes no metadata. Emptying the log writes the header of the
// next epoch and a zero frame header after it; records of an earlier
// epoch still in the file lie past that end, and their checksums (which
// cover the epoch) do not hold for the current one.
type wal struct {
	path      string
	dir       string
	file      *os.File // nil until the first record: a fresh store creates no log
	epoch     uint64
	size      int64 // where the next record goes
	allocated int64 // the file's length, zeros past size
	// unsynced is when the oldest record not yet synced was written (zero
	// when every record is synced).
	unsynced time.Time
	// syncData puts the file's data on disk: fdatasync (a test watches
	// when the log is synced through it).
	syncData func(*os.File) error
	log      *slog.Logger
}

const (
	walMagic       = "sandwal1"
	walHeader      = len(walMagic) + 8
	walFrameHeader = 16
	walChunk       = 1 << 20
	walZeros       = 64 << 10 // the most zeros written at once
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// openWAL opens the log at path, if there is one, and returns the records
// it holds. The log ends at a zero frame header; a record cut short,
// failing its checksum or of another epoch ends it too: that is the last
// record, whose write never finished (a killed process had not
// acknowledged it; after a power cut, the first of the records not yet
// synced that did not reach the disk whole); it is dropped with a log
// line, and so is every record after it.
func openWAL(path string, log *slog.Logger, syncData func(*os.File) error) (*wal, [][]byte, error) {
	w := &wal{path: path, dir: filepath.Dir(path), syncData: syncData, log: log}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return w, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read write-ahead log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open write-ahead log: %w", err)
	}
	w.file, w.allocated = f, int64(len(data))
	if len(data) < walHeader || string(data[:len(walMagic)]) != walMagic {
		// Its creation never finished, so it holds no record.
		if err := w.start(0); err != nil {
			f.Close()
			return nil, nil, err
		}
		return w, nil, nil
	}
	w.epoch = binary.LittleEndian.Uint64(data[len(walMagic):])
	records, end, torn := parseWAL(data[walHeader:], w.epoch)
	if torn {
		log.Warn("store: dropping a torn record at the end of the write-ahead log (its write or its sync never finished)",
			"log", path, "offset", walHeader+end, "records kept", len(records))
	}
	w.size = int64(walHeader + end)
	return w, records, nil
}

// parseWAL splits the records of an epoch into their payloads and returns
// where they end, and whether they end otherwise than at a zero frame
// header (at a torn record).
func parseWAL(data []byte, epoch uint64) (records [][]byte, end int, torn bool) {
	for end+walFrameHeader <= len(data) {
		frame := data[end:]
		n := binary.LittleEndian.Uint32(frame)
		if n == 0 {
			return records, end, false
		}
		if uint64(n) > uint64(len(frame)-walFrameHeader) {
			return records, end, true
		}
		payload := frame[walFrameHeader : walFrameHeader+int(n)]
		if binary.LittleEndian.Uint64(frame[8:]) != epoch || binary.LittleEndian.Uint32(frame[4:]) != frameSum(epoch, payload) {
			return records, end, true
		}
		records = append(records, payload)
		end += walFrameHeader + int(n)
	}
	return records, end, !bytes.Equal(data[end:], make([]byte, len(data)-end))
}

// frameSum is the checksum of a record of the epoch.
func frameSum(epoch uint64, payload []byte) uint32 {
	var e [8]byte
	binary.LittleEndian.PutUint64(e[:], epoch)
	return crc32.Update(crc32.Checksum(e[:], castagnoli), castagnoli, payload)
}

// append writes one record at now, which the next sync puts on disk.
// frame is the record's payload after walFrameHeader bytes of room for its
// header, which append fills in; it also appends the zero frame header
// that ends the log.
func (w *wal) append(frame []byte, now time.Time) error {
	if w.file == nil {
		if err := w.create(); err != nil {
			return err
		}
	}
	payload := frame[walFrameHeader:]
	if len(payload) > math.MaxUint32 {
		// Not reached: SMTP's buffer bounds the mail in flight far below.
		return fmt.Errorf("append to write-ahead log: a record of %d bytes", len(payload))
	}
	binary.LittleEndian.PutUint32(frame, uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[4:], frameSum(w.epoch, payload))
	binary.LittleEndian.PutUint64(frame[8:], w.epoch)
	end := w.size + int64(len(frame))
	frame = append(frame, make([]byte, walFrameHeader)...)
	if err := w.allocate(w.size + int64(len(frame))); err != nil {
		return err
	}
	if _, err := w.file.WriteAt(frame, w.size); err != nil {
		return fmt.Errorf("append to write-ahead log: %w", err)
	}
	w.size = end
	if w.unsynced.IsZero() {
		w.unsynced = now
	}
	return nil
}

// sync puts the records not yet synced on disk.
func (w *wal) sync() error {
	if w.unsynced.IsZero() {
		return nil
	}
	if err := w.syncData(w.file); err != nil {
		return fmt.Errorf("sync write-ahead log: %w", err)
	}
	w.unsynced = time.Time{}
	return nil
}

// allocate fills the file with zeros up to at least length, a whole
// number of chunks; the next fdatasync writes them.
func (w *wal) allocate(length int64) error {
	if length <= w.allocated {
		return nil
	}
	grown := (length + walChunk - 1) / walChunk * walChunk
	zeros := make([]byte, min(grown-w.allocated, walZeros))
	for w.allocated < grown {
		n, err := w.file.WriteAt(zeros[:min(int64(len(zeros)), grown-w.allocated)], w.allocated)
		w.allocated += int64(n)
		if err != nil {
			return fmt.Errorf("grow write-ahead log: %w", err)
		}
	}
	return nil
}

// create makes the log file (0600), with its header and first chunk
// synced, and syncs its directory, so that the records later synced into
// it are found after a crash.
func (w *wal) create() error {
	f, err := os.OpenFile(w.path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create write-ahead log: %w", err)
	}
	w.file, w.allocated = f, 0
	err = w.allocate(walChunk)
	if err == nil {
		err = w.start(0)
	}
	if err == nil {
		var d *os.File
		if d, err = os.Open(w.dir); err == nil {
			err = d.Sync()
			d.Close()
		}
	}
	if err != nil {
		f.Close()
		w.file = nil
		return fmt.Errorf("create write-ahead log: %w", err)
	}
	return nil
}

// start writes the header of an empty log of the epoch and the zero frame
// header after it, synced.
func (w *wal) start(epoch uint64) error {
	header := make([]byte, walHeader+walFrameHeader)
	copy(header, walMagic)
	binary.LittleEndian.PutUint64(header[len(walMagic):], epoch)
	if err := w.allocate(int64(walHeader + walFrameHeader)); err != nil {
		return err
	}
	if _, err := w.file.WriteAt(header, 0); err != nil {
		return fmt.Errorf("write-ahead log header: %w", err)
	}
	if err := w.syncData(w.file); err != nil {
		return fmt.Errorf("sync write-ahead log header: %w", err)
	}
	w.epoch, w.size, w.unsynced = epoch, int64(walHeader), time.Time{}
	return nil
}

// empty reports whether the log holds no record.
func (w *wal) empty() bool { return w.file == nil || w.size == int64(walHeader) }

// reset empties the log once the bbolt file holds (durably) every change
// in it: the next epoch starts, synced before any new record is written.
func (w *wal) reset() error {
	if w.empty() {
		return nil
	}
	return w.start(w.epoch + 1)
}

// length is how many bytes of records the log holds.
func (w *wal) length() int64 {
	if w.file == nil {
		return 0
	}
	return w.size - int64(walHeader)
}

// close closes the file, cut down to its header when the log is empty
// (the zeros kept ahead of the records take up to checkpointBytes; a cut
// that a crash undoes leaves records of earlier epochs, which are not
// read).
func (w *wal) close() error {
	if w.file == nil {
		return nil
	}
	err := w.sync()
	if err == nil && w.empty() && w.allocated > int64(walHeader+walFrameHeader) {
		if err = w.file.Truncate(int64(walHeader + walFrameHeader)); err != nil {
			err = fmt.Errorf("cut the write-ahead log: %w", err)
		}
	}
	return errors.Join(err, w.file.Close())
}
