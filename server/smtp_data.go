package server

import (
	"context"
	"errors"
	"io"
	"slices"
	"time"

	"github.com/emersion/go-smtp"
)

// Memory of messages being received. Every DATA reserves room in one
// server-wide budget (Config.SMTPBufferBytes) before it reads: the size
// the client declared with MAIL's SIZE parameter (with some slack), or
// else the size limit. It waits for room in turn, so many large messages
// at once slow senders down instead of growing the server. A message
// past the limit is refused (552) as soon as it crosses it: its buffer
// goes at once and the rest is read and discarded by go-smtp, never held.
// The room is given back when the message is stored.

// smtpBudgetWait bounds the wait for room; the client then gets 451.
const smtpBudgetWait = 2 * time.Minute

// smtpSizeSlack is added to a declared SIZE: clients count line endings
// and dot-stuffing differently.
const smtpSizeSlack = 64 << 10

// smtpReadChunk is the most read at once into a message's buffer.
const smtpReadChunk = 64 << 10

// readMessage reads a message of at most limit bytes into a buffer held
// by the budget; release gives the room back (also on error).
func (ss *smtpSession) readMessage(r io.Reader) (raw []byte, release func(), err error) {
	g := ss.s.smtp
	limit := ss.s.cfg.MaxMessageBytes
	reserve := limit + 1 // the byte that tells a message is too large
	if ss.declaredSize > 0 {
		reserve = min(reserve, ss.declaredSize+smtpSizeSlack)
	}
	ctx, cancel := context.WithTimeout(ss.s.baseCtx, smtpBudgetWait)
	defer cancel()
	if err := g.budget.Acquire(ctx, reserve); err != nil {
		return nil, func() {}, ss.refuse(smtpError(451, smtp.EnhancedCode{4, 3, 1}, "the server is busy receiving other mail, try again later"))
	}
	held := reserve
	release = func() { g.budget.Release(held) }
	buf := make([]byte, 0, min(reserve, smtpReadChunk))
	for {
		if int64(len(buf)) == held {
			// Past the declared size: take more room only if it is free.
			more := limit + 1 - held
			if !g.budget.TryAcquire(more) {
				return nil, release, ss.refuse(smtpError(452, smtp.EnhancedCode{4, 3, 1}, "the message is larger than its declared SIZE and the server is busy, try again later"))
			}
			held += more
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf)), held-int64(len(buf)))))
		}
		end := min(int64(cap(buf)), held, int64(len(buf))+smtpReadChunk)
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			release()
			return nil, func() {}, ss.refuse(smtpError(552, smtp.EnhancedCode{5, 3, 4}, "the message exceeds the size limit of %d bytes", limit))
		}
		if errors.Is(err, io.EOF) {
			return buf, release, nil
		}
		if err != nil {
			if errors.Is(err, smtp.ErrTooLongLine) {
				return nil, release, ss.refuse(smtpError(500, smtp.EnhancedCode{5, 5, 6}, "a line is longer than %d bytes", smtpMaxLineLength))
			}
			return nil, release, smtpError(451, smtp.EnhancedCode{4, 3, 0}, "reading the message failed: %v", err)
		}
	}
}
