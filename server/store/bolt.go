package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Bucket layout: inboxes/<hash> = JSON Inbox; emails/<hash>/<id> = encoded
// Email (see encodeEmail).
var (
	bucketInboxes = []byte("inboxes")
	bucketEmails  = []byte("emails")
)

// maxGroup bounds how many queued writes share one transaction.
const maxGroup = 512

// Bolt is a durable Store in one bbolt file. Writes from concurrent callers
// are grouped by a committer goroutine into one transaction and one fsync;
// each call returns once its write is on disk.
type Bolt struct {
	db       *bolt.DB
	requests chan *writeRequest
	closing  chan struct{}
	done     chan struct{}
	closeMu  sync.Once
}

// writeRequest is one caller's write. check runs first and may refuse the
// write without changing anything; apply must not fail halfway.
type writeRequest struct {
	check func(tx *bolt.Tx) error
	apply func(tx *bolt.Tx) error
	done  chan error
}

var _ Store = (*Bolt)(nil)

// OpenBolt opens (or creates, mode 0600) the store file at path.
func OpenBolt(path string) (*Bolt, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketInboxes, bucketEmails} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("initialise store %s: %w", path, err)
	}
	b := &Bolt{
		db:       db,
		requests: make(chan *writeRequest, maxGroup),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
	}
	go b.commitLoop()
	return b, nil
}

// commitLoop takes the first waiting write, gathers every other write
// already queued, and commits them together.
func (b *Bolt) commitLoop() {
	defer close(b.done)
	group := make([]*writeRequest, 0, maxGroup)
	for {
		select {
		case <-b.closing:
			b.failQueued()
			return
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
		}
	}
}

func (b *Bolt) failQueued() {
	for {
		select {
		case r := <-b.requests:
			r.done <- ErrClosed
		default:
			return
		}
	}
}

func (b *Bolt) commitGroup(group []*writeRequest) {
	results := make([]error, len(group))
	err := b.db.Update(func(tx *bolt.Tx) error {
		for i, r := range group {
			if r.check != nil {
				if results[i] = r.check(tx); results[i] != nil {
					continue
				}
			}
			if err := r.apply(tx); err != nil {
				return err
			}
		}
		return nil
	})
	for i, r := range group {
		if err != nil {
			r.done <- fmt.Errorf("commit: %w", err)
			continue
		}
		r.done <- results[i]
	}
}

// write queues a request and waits until it is committed.
func (b *Bolt) write(ctx context.Context, check, apply func(tx *bolt.Tx) error) error {
	r := &writeRequest{check: check, apply: apply, done: make(chan error, 1)}
	select {
	case <-b.closing:
		return ErrClosed
	default:
	}
	select {
	case <-b.closing:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	case b.requests <- r:
	}
	select {
	case err := <-r.done:
		return err
	case <-b.done:
		// The committer has stopped; it answered or failed every request
		// it took, so a request still unanswered was never applied.
		select {
		case err := <-r.done:
			return err
		default:
			return ErrClosed
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// PutInbox implements Store.
func (b *Bolt) PutInbox(ctx context.Context, inbox Inbox) error {
	data, err := json.Marshal(inbox)
	if err != nil {
		return fmt.Errorf("encode inbox: %w", err)
	}
	return b.write(ctx, nil, func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketInboxes).Put([]byte(inbox.Hash), data); err != nil {
			return err
		}
		_, err := tx.Bucket(bucketEmails).CreateBucketIfNotExists([]byte(inbox.Hash))
		return err
	})
}

// DeleteInbox implements Store.
func (b *Bolt) DeleteInbox(ctx context.Context, hash string) error {
	return b.write(ctx, nil, func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketInboxes).Delete([]byte(hash)); err != nil {
			return err
		}
		err := tx.Bucket(bucketEmails).DeleteBucket([]byte(hash))
		if errors.Is(err, bolterrors.ErrBucketNotFound) {
			return nil
		}
		return err
	})
}

// Inboxes implements Store.
func (b *Bolt) Inboxes(context.Context) ([]Inbox, error) {
	var out []Inbox
	err := b.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketInboxes).ForEach(func(k, v []byte) error {
			var in Inbox
			if err := json.Unmarshal(v, &in); err != nil {
				return fmt.Errorf("decode inbox %s: %w", k, err)
			}
			out = append(out, in)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list inboxes: %w", err)
	}
	return out, nil
}

func mailbox(tx *bolt.Tx, hash string) *bolt.Bucket {
	return tx.Bucket(bucketEmails).Bucket([]byte(hash))
}

// Commit implements Store.
func (b *Bolt) Commit(ctx context.Context, batch Batch) error {
	encoded := make([][]byte, len(batch.Put))
	for i, e := range batch.Put {
		encoded[i] = encodeEmail(e)
	}
	check := func(tx *bolt.Tx) error {
		for _, e := range batch.Put {
			if mailbox(tx, e.InboxHash) == nil {
				return fmt.Errorf("put email %s: inbox %s: %w", e.ID, e.InboxHash, ErrNotFound)
			}
		}
		return nil
	}
	apply := func(tx *bolt.Tx) error {
		for _, k := range batch.Delete {
			if mb := mailbox(tx, k.InboxHash); mb != nil {
				if err := mb.Delete([]byte(k.ID)); err != nil {
					return err
				}
			}
		}
		for i, e := range batch.Put {
			if err := mailbox(tx, e.InboxHash).Put([]byte(e.ID), encoded[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return b.write(ctx, check, apply)
}

// DeleteEmail implements Store.
func (b *Bolt) DeleteEmail(ctx context.Context, k EmailKey) error {
	check := func(tx *bolt.Tx) error {
		mb := mailbox(tx, k.InboxHash)
		if mb == nil || mb.Get([]byte(k.ID)) == nil {
			return fmt.Errorf("delete email %s: %w", k.ID, ErrNotFound)
		}
		return nil
	}
	return b.write(ctx, check, func(tx *bolt.Tx) error {
		return mailbox(tx, k.InboxHash).Delete([]byte(k.ID))
	})
}

// MarkRead implements Store.
func (b *Bolt) MarkRead(ctx context.Context, k EmailKey) error {
	check := func(tx *bolt.Tx) error {
		mb := mailbox(tx, k.InboxHash)
		if mb == nil || mb.Get([]byte(k.ID)) == nil {
			return fmt.Errorf("mark email %s read: %w", k.ID, ErrNotFound)
		}
		return nil
	}
	return b.write(ctx, check, func(tx *bolt.Tx) error {
		mb := mailbox(tx, k.InboxHash)
		v := mb.Get([]byte(k.ID))
		if len(v) < headerSize || v[1]&flagRead != 0 {
			return nil
		}
		updated := make([]byte, len(v))
		copy(updated, v)
		updated[1] |= flagRead
		return mb.Put([]byte(k.ID), updated)
	})
}

// SetSigned implements Store.
func (b *Bolt) SetSigned(ctx context.Context, changes []Signed) error {
	return b.write(ctx, nil, func(tx *bolt.Tx) error {
		for _, c := range changes {
			mb := mailbox(tx, c.Key.InboxHash)
			if mb == nil {
				continue
			}
			v := mb.Get([]byte(c.Key.ID))
			if v == nil {
				continue
			}
			e, err := decodeEmail(c.Key, v, true)
			if err != nil {
				return err
			}
			c.apply(e)
			if err := mb.Put([]byte(c.Key.ID), encodeEmail(e)); err != nil {
				return fmt.Errorf("sign email %s: %w", c.Key.ID, err)
			}
		}
		return nil
	})
}

// Email implements Store.
func (b *Bolt) Email(_ context.Context, k EmailKey) (*Email, error) {
	var out *Email
	err := b.db.View(func(tx *bolt.Tx) error {
		mb := mailbox(tx, k.InboxHash)
		if mb == nil {
			return fmt.Errorf("inbox %s: %w", k.InboxHash, ErrNotFound)
		}
		v := mb.Get([]byte(k.ID))
		if v == nil {
			return fmt.Errorf("email %s: %w", k.ID, ErrNotFound)
		}
		var err error
		out, err = decodeEmail(k, v, true)
		return err
	})
	return out, err
}

// Emails implements Store.
func (b *Bolt) Emails(_ context.Context, hash string, withContent bool) ([]*Email, error) {
	var out []*Email
	err := b.db.View(func(tx *bolt.Tx) error {
		mb := mailbox(tx, hash)
		if mb == nil {
			return fmt.Errorf("inbox %s: %w", hash, ErrNotFound)
		}
		out = make([]*Email, 0, mb.Stats().KeyN)
		c := mb.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			e, err := decodeEmail(EmailKey{InboxHash: hash, ID: string(k)}, v, withContent)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// IDs implements Store.
func (b *Bolt) IDs(_ context.Context, hash string) ([]string, error) {
	var out []string
	err := b.db.View(func(tx *bolt.Tx) error {
		mb := mailbox(tx, hash)
		if mb == nil {
			return fmt.Errorf("inbox %s: %w", hash, ErrNotFound)
		}
		c := mb.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			out = append(out, string(k))
		}
		return nil
	})
	return out, err
}

// ForEachEmail implements Store.
func (b *Bolt) ForEachEmail(_ context.Context, fn func(EmailInfo) error) error {
	return b.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEmails).ForEachBucket(func(hash []byte) error {
			c := tx.Bucket(bucketEmails).Bucket(hash).Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				size, err := payloadSize(v)
				if err != nil {
					return fmt.Errorf("email %s: %w", k, err)
				}
				info := EmailInfo{EmailKey: EmailKey{InboxHash: string(hash), ID: string(k)}, Size: size, Unsigned: unsignedParts(v[1])}
				if err := fn(info); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// Close implements Store: it stops the committer (queued writes fail with
// ErrClosed) and closes the file.
func (b *Bolt) Close() error {
	var err error
	b.closeMu.Do(func() {
		close(b.closing)
		<-b.done
		err = b.db.Close()
	})
	return err
}

// Email encoding: version, flags, receivedAt (unix nanoseconds, big endian),
// then metadata, parsed and raw, each prefixed by its length as a uvarint.
// The flags are the read flag and, shifted by unsignedShift, the Unsigned
// parts.
const (
	encodingVersion = 1
	flagRead        = 1 << 0
	unsignedShift   = 1
	headerSize      = 10
)

func unsignedParts(flags byte) Parts {
	return Parts(flags>>unsignedShift) & (PartParsed | PartRaw)
}

func encodeEmail(e *Email) []byte {
	buf := make([]byte, headerSize, headerSize+3*binary.MaxVarintLen64+int(e.Size()))
	buf[0] = encodingVersion
	if e.IsRead {
		buf[1] |= flagRead
	}
	buf[1] |= byte(e.Unsigned&(PartParsed|PartRaw)) << unsignedShift
	binary.BigEndian.PutUint64(buf[2:], uint64(e.ReceivedAt.UnixNano()))
	for _, part := range [][]byte{e.Metadata, e.Parsed, e.Raw} {
		buf = binary.AppendUvarint(buf, uint64(len(part)))
		buf = append(buf, part...)
	}
	return buf
}

// decodeEmail copies an encoded email out of a bbolt value (which is only
// valid inside its transaction).
func decodeEmail(k EmailKey, v []byte, withContent bool) (*Email, error) {
	if len(v) < headerSize || v[0] != encodingVersion {
		return nil, fmt.Errorf("decode email %s: unknown encoding", k.ID)
	}
	e := &Email{
		ID:         k.ID,
		InboxHash:  k.InboxHash,
		IsRead:     v[1]&flagRead != 0,
		Unsigned:   unsignedParts(v[1]),
		ReceivedAt: time.Unix(0, int64(binary.BigEndian.Uint64(v[2:]))).UTC(),
	}
	rest := v[headerSize:]
	parts := []*[]byte{&e.Metadata, &e.Parsed, &e.Raw}
	if !withContent {
		parts = parts[:1]
	}
	for _, dst := range parts {
		n, used := binary.Uvarint(rest)
		if used <= 0 || uint64(len(rest)-used) < n {
			return nil, fmt.Errorf("decode email %s: truncated value", k.ID)
		}
		*dst = append([]byte(nil), rest[used:used+int(n)]...)
		rest = rest[used+int(n):]
	}
	return e, nil
}

// payloadSize is the total size of the three parts of an encoded email,
// read without copying them.
func payloadSize(v []byte) (int64, error) {
	if len(v) < headerSize || v[0] != encodingVersion {
		return 0, errors.New("unknown encoding")
	}
	rest := v[headerSize:]
	var total int64
	for range 3 {
		n, used := binary.Uvarint(rest)
		if used <= 0 || uint64(len(rest)-used) < n {
			return 0, errors.New("truncated value")
		}
		total += int64(n)
		rest = rest[used+int(n):]
	}
	return total, nil
}
