package client

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sandview/crypto"
	"sandview/model"
)

// Inbox is a loaded inbox: its server description and, when encrypted, its
// key pair and the server key pinned at creation. It is safe for concurrent
// use.
type Inbox struct {
	c         *Client
	info      model.Inbox
	emailAuth *bool // as known from creation or import; nil when unknown
	keyring         // nil keys for a plain inbox
}

// keyring holds an encrypted inbox's keys and the opener built from them
// once, with the server's context string.
type keyring struct {
	secretKey []byte // ML-KEM-768 secret key
	serverKey []byte // pinned ML-DSA-65 public key

	openerMu sync.Mutex
	opener   *crypto.Opener
}

// Info returns the inbox as the service describes it.
func (i *Inbox) Info() model.Inbox { return i.info }

// Address returns the inbox's email address.
func (i *Inbox) Address() string { return i.info.EmailAddress }

// Hash returns the inbox hash (the id used by the event stream).
func (i *Inbox) Hash() string { return i.info.InboxHash }

// Encrypted reports whether the inbox's mail is encrypted.
func (i *Inbox) Encrypted() bool { return i.info.Encrypted }

// ExpiresAt returns when the inbox's TTL runs out.
func (i *Inbox) ExpiresAt() time.Time { return i.info.ExpiresAt }

// IsExpired reports whether the inbox's TTL has run out.
func (i *Inbox) IsExpired() bool { return i.info.IsExpired(time.Now()) }

// Client returns the client the inbox belongs to.
func (i *Inbox) Client() *Client { return i.c }

// Export returns the inbox in the portable export format. The result holds
// the secret key of an encrypted inbox: handle it as a secret.
func (i *Inbox) Export() (model.ExportedInbox, error) {
	d := model.ExportedInbox{
		Version:      model.ExportVersion,
		EmailAddress: i.info.EmailAddress,
		ExpiresAt:    formatTime(i.info.ExpiresAt),
		InboxHash:    i.info.InboxHash,
		Encrypted:    i.info.Encrypted,
		EmailAuth:    i.emailAuth,
		ExportedAt:   formatTime(time.Now()),
	}
	if i.info.Encrypted {
		if len(i.secretKey) != crypto.KEMSecretKeySize || len(i.serverKey) != crypto.SigPublicKeySize {
			return model.ExportedInbox{}, fmt.Errorf("export inbox %s: its keys are missing", i.info.EmailAddress)
		}
		d.SecretKey = crypto.EncodeBase64URL(i.secretKey)
		d.ServerSigPk = crypto.EncodeBase64URL(i.serverKey)
	}
	return d, nil
}

// formatTime writes t as RFC 3339 (ISO 8601) in UTC with milliseconds,
// like the official SDKs.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// openerFor returns the inbox's opener, building it on first use with the
// context string of the server's info (fetched when not cached yet).
func (i *Inbox) openerFor(ctx context.Context) (*crypto.Opener, error) {
	i.openerMu.Lock()
	defer i.openerMu.Unlock()
	if i.opener != nil {
		return i.opener, nil
	}
	info, err := i.c.ServerInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("inbox %s: the server's encryption context is needed to open mail: %w", i.info.EmailAddress, err)
	}
	if err := i.buildLocked(info.EncryptionContext()); err != nil {
		return nil, fmt.Errorf("inbox %s: %w", i.info.EmailAddress, err)
	}
	return i.opener, nil
}

// setOpener builds the opener with a known context string.
func (k *keyring) setOpener(context string) error {
	k.openerMu.Lock()
	defer k.openerMu.Unlock()
	return k.buildLocked(context)
}

// buildLocked builds the opener, with openerMu held.
func (k *keyring) buildLocked(context string) error {
	o, err := crypto.NewOpener(k.secretKey, k.serverKey, context)
	if err != nil {
		return fmt.Errorf("load keys: %w", err)
	}
	k.opener = o
	return nil
}
