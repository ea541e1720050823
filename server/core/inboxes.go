package core

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"sandview/crypto"
	"sandview/model"
	"sandview/server/store"
)

// Errors of Inboxes.Create, to test with errors.Is: the request breaks a
// rule (its message says which), or the address or key is in use.
var (
	ErrInvalid  = errors.New("invalid inbox request")
	ErrConflict = errors.New("inbox conflict")
)

// inboxError is a refused request: kind is ErrInvalid or ErrConflict.
type inboxError struct {
	kind error
	msg  string
}

func (e *inboxError) Error() string { return e.msg }
func (e *inboxError) Unwrap() error { return e.kind }

func invalid(format string, args ...any) error {
	return &inboxError{kind: ErrInvalid, msg: fmt.Sprintf(format, args...)}
}

func conflict(format string, args ...any) error {
	return &inboxError{kind: ErrConflict, msg: fmt.Sprintf(format, args...)}
}

// CreateRequest asks for a new inbox; nil fields take the defaults.
type CreateRequest struct {
	ClientKemPk  *string `json:"clientKemPk"`
	TTL          *int64  `json:"ttl"`
	EmailAddress *string `json:"emailAddress"`
	Encryption   *string `json:"encryption"`
	EmailAuth    *bool   `json:"emailAuth"`
}

// Inboxes is the inbox side of the core: create, find and delete live
// inboxes.
type Inboxes struct{ c *Core }

// Inboxes returns the core's inboxes.
func (c *Core) Inboxes() Inboxes { return Inboxes{c} }

// ByAddress returns the live, unexpired inbox at the (lowercased) address.
func (i Inboxes) ByAddress(address string) (*Inbox, bool) {
	return i.c.reg.byAddr(address, i.c.opts.Now())
}

// ForRecipient returns the inbox that takes SMTP mail for address: the
// live inbox there, else the catch-all inbox (see Core.SetCatchAll).
func (i Inboxes) ForRecipient(address string) (*Inbox, bool) {
	if in, ok := i.ByAddress(address); ok {
		return in, true
	}
	catchAll := i.c.CatchAll()
	if catchAll == "" {
		return nil, false
	}
	return i.ByAddress(catchAll)
}

// ByHash returns the live inbox with that hash, from the registry or,
// when it does not hold it (another replica created it), the store.
func (i Inboxes) ByHash(ctx context.Context, hash string) (*Inbox, bool) {
	if in, ok := i.c.reg.get(hash); ok {
		return in, true
	}
	stored, err := i.c.store.Inbox(ctx, hash)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
			i.c.log.Warn("looking an inbox up in the store failed", "error", err)
		}
		return nil, false
	}
	return i.register(stored)
}

// All lists the inboxes of the whole service: every stored one (those
// created by other replicas too), registered.
func (i Inboxes) All(ctx context.Context) ([]*Inbox, error) {
	stored, err := i.c.store.Inboxes(ctx)
	if err != nil {
		return nil, fmt.Errorf("list inboxes: %w", err)
	}
	out := make([]*Inbox, 0, len(stored))
	for _, st := range stored {
		if in, ok := i.register(st); ok {
			out = append(out, in)
		}
	}
	return out, nil
}

// Lookup finds a live inbox's hash and canonical address (the webhook
// engine's view of the inboxes).
func (i Inboxes) Lookup(address string) (hash, canonical string, ok bool) {
	in, ok := i.ByAddress(strings.ToLower(strings.TrimSpace(address)))
	if !ok {
		return "", "", false
	}
	return in.Hash, in.Address, true
}

// ServesDomain reports whether inboxes may live in domain.
func (i Inboxes) ServesDomain(domain string) bool {
	for _, d := range i.c.opts.Domains {
		if d == domain {
			return true
		}
	}
	return false
}

// Delete removes a live inbox and its emails (reason manual) and returns
// how many emails it held; ok is false when there was no such inbox.
func (i Inboxes) Delete(ctx context.Context, in *Inbox) (emails int, ok bool, err error) {
	c := i.c
	ids, err := c.store.IDs(ctx, in.Hash)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return 0, true, fmt.Errorf("delete inbox %s: %w", in.Address, err)
	}
	// The store first: an inbox it still holds once the registry no
	// longer does would be found there and registered again.
	if err := c.store.DeleteInbox(ctx, in.Hash); err != nil {
		return len(ids), true, fmt.Errorf("delete inbox %s: %w", in.Address, err)
	}
	if !c.reg.remove(in.Hash) {
		return 0, false, nil
	}
	c.publishDeleted(in, ids, model.DeleteReasonManual)
	c.publishInboxDeleted(in, model.DeleteReasonManual)
	c.hooks.ForgetInbox(in.Address)
	return len(ids), true, nil
}

// Create validates a request under the encryption policy and the TTL and
// address rules (see rules.go), then registers and stores the inbox; it
// returns the inbox as stored, owned by owner (a principal's ID, "" for
// the server's API key: see server/access). A refusal wraps ErrInvalid or
// ErrConflict.
func (i Inboxes) Create(ctx context.Context, req CreateRequest, owner string) (store.Inbox, error) {
	o := i.c.opts
	ttl := o.DefaultTTL
	if req.TTL != nil {
		minSeconds, maxSeconds := int64(o.MinTTL/time.Second), int64(o.MaxTTL/time.Second)
		if *req.TTL < minSeconds || *req.TTL > maxSeconds {
			return store.Inbox{}, invalid("ttl must be between %d and %d seconds, got %d", minSeconds, maxSeconds, *req.TTL)
		}
		ttl = time.Duration(*req.TTL) * time.Second
	}
	encrypted, err := i.resolveEncryption(req.Encryption)
	if err != nil {
		return store.Inbox{}, err
	}
	now := o.Now().UTC().Truncate(time.Millisecond)
	stored := store.Inbox{
		Encrypted: encrypted,
		EmailAuth: req.EmailAuth == nil || *req.EmailAuth,
		CreatedAt: now,
		ExpiresAt: now.Add(ttl),
		Owner:     owner,
	}
	if encrypted {
		if req.ClientKemPk == nil || *req.ClientKemPk == "" {
			return store.Inbox{}, invalid("clientKemPk is required for an encrypted inbox (base64url ML-KEM-768 public key, %d bytes)", crypto.KEMPublicKeySize)
		}
		pub, err := crypto.DecodeBase64URL(*req.ClientKemPk)
		if err != nil {
			return store.Inbox{}, invalid("clientKemPk is not valid unpadded base64url: %v", err)
		}
		if len(pub) != crypto.KEMPublicKeySize {
			return store.Inbox{}, invalid("clientKemPk decodes to %d bytes, want %d", len(pub), crypto.KEMPublicKeySize)
		}
		stored.ClientKemPk = pub
		stored.Hash = crypto.InboxHash(pub)
	}
	address, random, err := i.resolveAddress(req.EmailAddress)
	if err != nil {
		return store.Inbox{}, err
	}
	for attempt := 0; ; attempt++ {
		stored.Address = address
		if !encrypted {
			stored.Hash = crypto.PlainInboxHash(address)
		}
		in, err := i.newLive(stored)
		if err != nil {
			return store.Inbox{}, invalid("clientKemPk is not a valid ML-KEM-768 public key: %v", err)
		}
		switch err := i.c.reg.add(in); {
		case err == nil:
			if err := i.c.store.PutInbox(ctx, stored); err != nil {
				i.c.reg.remove(in.Hash)
				if errors.Is(err, store.ErrConflict) {
					return store.Inbox{}, conflict("inbox %s or its clientKemPk already exists", address)
				}
				return store.Inbox{}, err
			}
			return stored, nil
		case errors.Is(err, errKeyTaken):
			return store.Inbox{}, conflict("an inbox with this clientKemPk already exists")
		case !random || attempt >= 10:
			return store.Inbox{}, conflict("inbox %s already exists", address)
		}
		address = randomLocalPart() + address[strings.LastIndexByte(address, '@'):]
	}
}

// newLive prepares a stored inbox for serving.
func (i Inboxes) newLive(stored store.Inbox) (*Inbox, error) {
	in := &Inbox{Inbox: stored}
	if stored.Encrypted {
		sealer, err := crypto.NewSealer(stored.ClientKemPk, i.c.key, i.c.opts.EncryptionContext)
		if err != nil {
			return nil, err
		}
		in.sealer = sealer
	}
	return in, nil
}

// register adds a stored inbox to the registry, or returns the one it
// already holds; an expired one it does not hold is not added (it is
// being swept).
func (i Inboxes) register(stored store.Inbox) (*Inbox, bool) {
	if in, ok := i.c.reg.get(stored.Hash); ok {
		return in, true
	}
	if !i.c.opts.Now().Before(stored.ExpiresAt) {
		return nil, false
	}
	in, err := i.newLive(stored)
	if err != nil {
		i.c.log.Error("an inbox in the store cannot be served", "inbox", stored.Address, "error", err)
		return nil, false
	}
	if err := i.c.reg.add(in); err != nil {
		return i.c.reg.get(stored.Hash)
	}
	return in, true
}

// randomLocalPart is a new inbox's local part when none is asked for.
func randomLocalPart() string {
	var buf [randomLocalLength]byte
	_, _ = rand.Read(buf[:])
	for i, b := range buf {
		buf[i] = localAlphabet[int(b)%len(localAlphabet)]
	}
	return string(buf[:])
}
