package smtpd

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"slices"
	"time"

	"github.com/emersion/go-smtp"
	"golang.org/x/sync/semaphore"
)

// Memory of messages being received. Every DATA holds room in a
// server-wide budget (about Settings.BufferBytes) for what it has read,
// in two lanes:
//   - the small lane (a quarter of the budget) gives each message its
//     first smtpFirstRoom bytes, which most mail never passes;
//   - the large lane gives a message room up to the size limit, in turn:
//     a message past its first room waits there (its client is not read
//     meanwhile, so a flood of large messages slows its senders down
//     instead of growing the server), and a message whose MAIL declared a
//     larger SIZE starts there.
//
// Only the large lane is ever waited for while holding room (in the small
// one), and what holds large room never waits, so every wait ends. A
// message past the limit is refused (552) as soon as it crosses it: its
// buffer goes at once, the rest is read in small pieces and discarded,
// never held. The room is given back once the message is stored.

// smtpFirstRoom is the room a message gets in the small lane.
const smtpFirstRoom = 256 << 10

// smtpBudgetWait bounds a wait for room; the client then gets 451.
const smtpBudgetWait = 2 * time.Minute

// smtpSizeSlack is added to a declared SIZE: clients count line endings
// and dot-stuffing differently.
const smtpSizeSlack = 64 << 10

// smtpReadChunk is the most read at once.
const smtpReadChunk = 64 << 10

// smtpFirstBuffer is a message's first buffer, doubled as the message
// needs: most mail is a few KB, and a buffer of smtpReadChunk for each
// made the collector run every few messages.
const smtpFirstBuffer = 8 << 10

// smtpBudget is the two lanes of room for messages being received, and
// the turns of discarding refused data.
type smtpBudget struct {
	small, large *semaphore.Weighted
	discards     *semaphore.Weighted
}

// newSMTPBudget splits bytes between the lanes; the large one takes at
// least one message of maxMessage bytes.
func newSMTPBudget(bytes, maxMessage int64) smtpBudget {
	small := max(bytes/4, smtpFirstRoom)
	return smtpBudget{
		small: semaphore.NewWeighted(small),
		large: semaphore.NewWeighted(max(bytes-small, maxMessage+1)),
		// discards: see discard.
		discards: semaphore.NewWeighted(smtpDiscarders),
	}
}

// room is what one message holds in the lanes.
type room struct {
	b            smtpBudget
	small, large int64
}

func (r *room) total() int64 { return r.small + r.large }

func (r *room) release() {
	r.b.small.Release(r.small)
	r.b.large.Release(r.large)
	r.small, r.large = 0, 0
}

// readMessage reads a message of at most the size limit into a buffer
// held in the budget; release gives the room back (also on error).
func (ss *smtpSession) readMessage(r io.Reader) (raw []byte, release func(), err error) {
	limit := ss.s.set.MaxMessageBytes
	most := limit + 1 // the byte that tells a message is too large
	rm := &room{b: ss.s.guard.budget}
	release = rm.release
	conn := ss.conn.Conn()
	// discardThen answers once the rest of the message is read and
	// discarded.
	discardThen := func(answer *smtp.SMTPError) ([]byte, func(), error) {
		rm.release()
		if err := ss.discard(conn, r); !errors.Is(err, io.EOF) {
			return nil, release, ss.readError(err)
		}
		return nil, release, ss.refuse(answer)
	}
	busy := smtpError(451, smtp.EnhancedCode{4, 3, 1}, "the server is busy receiving other mail, try again later")
	ctx, cancel := context.WithTimeout(ss.s.core.Context(), smtpBudgetWait)
	defer cancel()
	if want := min(most, ss.declaredSize+smtpSizeSlack); ss.declaredSize > 0 && want > smtpFirstRoom {
		if rm.b.large.Acquire(ctx, want) != nil {
			return discardThen(busy)
		}
		rm.large = want
	} else {
		want = min(most, smtpFirstRoom)
		if rm.b.small.Acquire(ctx, want) != nil {
			return discardThen(busy)
		}
		rm.small = want
	}
	buf := make([]byte, 0, min(rm.total(), smtpFirstBuffer))
	for {
		if int64(len(buf)) == rm.total() {
			more := most - rm.total()
			switch {
			case rm.large == 0: // past the first room: wait in turn
				if rm.b.large.Acquire(ctx, more) != nil {
					return discardThen(busy)
				}
			case !rm.b.large.TryAcquire(more): // past the declared SIZE
				return discardThen(smtpError(452, smtp.EnhancedCode{4, 3, 1}, "the message is larger than its declared SIZE and the server is busy, try again later"))
			}
			rm.large += more
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf)), rm.total()-int64(len(buf)))))
		}
		end := min(int64(cap(buf)), rm.total(), int64(len(buf))+smtpReadChunk)
		n, err := ss.readSome(conn, r, buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			buf = nil
			tooLarge := smtpError(552, smtp.EnhancedCode{5, 3, 4}, "the message exceeds the size limit of %d bytes", limit)
			if err != nil { // the end, or a failure
				rm.release()
				if !errors.Is(err, io.EOF) {
					return nil, release, ss.readError(err)
				}
				return nil, release, ss.refuse(tooLarge)
			}
			return discardThen(tooLarge)
		}
		if errors.Is(err, io.EOF) {
			return buf, release, nil
		}
		if err != nil {
			return nil, release, ss.readError(err)
		}
	}
}

// readSome reads once, giving the client the idle timeout from now (the
// deadline go-smtp set at the DATA command would end a long transfer),
// then lets other goroutines run: a flood of data must not starve the
// API.
func (ss *smtpSession) readSome(conn net.Conn, r io.Reader, p []byte) (int, error) {
	if err := conn.SetReadDeadline(time.Now().Add(ss.s.set.IdleTimeout)); err != nil {
		return 0, err
	}
	n, err := r.Read(p)
	runtime.Gosched()
	return n, err
}

// smtpDiscarders is how many connections read refused data at once:
// throwing data away is all CPU, and a flood of oversized messages
// running in parallel would leave the API's requests queueing behind
// them. The others wait (and their senders with them) in turn, a piece
// at a time.
const smtpDiscarders = 2

// discard reads the rest of a refused message in small pieces, in turn
// with the other connections doing so; io.EOF at its end.
func (ss *smtpSession) discard(conn net.Conn, r io.Reader) error {
	scratch := make([]byte, 32<<10)
	turns := ss.s.guard.budget.discards
	for {
		if err := turns.Acquire(ss.s.core.Context(), 1); err != nil {
			return err
		}
		_, err := ss.readSome(conn, r, scratch)
		turns.Release(1)
		if err != nil {
			return err
		}
	}
}

// readError is the answer to a message that could not be read.
func (ss *smtpSession) readError(err error) error {
	if errors.Is(err, smtp.ErrTooLongLine) {
		return ss.refuse(smtpError(500, smtp.EnhancedCode{5, 5, 6}, "a line is longer than %d bytes", smtpMaxLineLength))
	}
	return smtpError(451, smtp.EnhancedCode{4, 3, 0}, "reading the message failed: %v", err)
}
