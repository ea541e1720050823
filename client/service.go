package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"sandview/crypto"
	"sandview/model"
)

// CheckKey reports whether the server accepts the API key: a 401 is false
// with no error.
func (c *Client) CheckKey(ctx context.Context) (bool, error) {
	var res model.CheckKeyResponse
	err := c.do(ctx, request{method: http.MethodGet, path: "/api/check-key", out: &res})
	var unauthorized *UnauthorizedError
	if errors.As(err, &unauthorized) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return res.OK, nil
}

// ServerInfo returns the server's info, cached after the first success.
func (c *Client) ServerInfo(ctx context.Context) (model.ServerInfo, error) {
	c.mu.Lock()
	cached := c.serverInfo
	c.mu.Unlock()
	if cached != nil {
		return *cached, nil
	}
	var info model.ServerInfo
	if err := c.do(ctx, request{method: http.MethodGet, path: "/api/server-info", out: &info}); err != nil {
		return model.ServerInfo{}, err
	}
	c.mu.Lock()
	c.serverInfo = &info
	c.mu.Unlock()
	return info, nil
}

// CreateInboxOptions are the choices for a new inbox; zero values leave
// the choice to the server.
type CreateInboxOptions struct {
	// TTL is the inbox's lifetime, whole seconds between 60 s and 7 days;
	// zero means the server default.
	TTL time.Duration
	// EmailAddress is a desired address or domain.
	EmailAddress string
	// Encryption is "", model.EncryptionEncrypted or model.EncryptionPlain.
	Encryption string
	// EmailAuth turns the SPF/DKIM/DMARC checks on or off for this inbox.
	EmailAuth *bool
}

// check rejects options the server would reject, with a clear message.
func (o CreateInboxOptions) check() error {
	if o.TTL != 0 {
		secs := o.TTL / time.Second
		if o.TTL%time.Second != 0 || secs < model.MinTTLSeconds || secs > model.MaxTTLSeconds {
			return fmt.Errorf("inbox TTL %s is not allowed: use whole seconds between 60s and 168h (7 days)", o.TTL)
		}
	}
	switch o.Encryption {
	case "", model.EncryptionEncrypted, model.EncryptionPlain:
	default:
		return fmt.Errorf("unknown encryption %q: use %q or %q", o.Encryption, model.EncryptionEncrypted, model.EncryptionPlain)
	}
	if len(o.EmailAddress) > 254 {
		return fmt.Errorf("email address is %d characters long; at most 254 are allowed", len(o.EmailAddress))
	}
	return nil
}

// CreateInbox creates an inbox on the server and loads it. A key pair is
// made when the server's policy or the request means encryption; the server
// key in the answer is pinned for the inbox's lifetime.
func (c *Client) CreateInbox(ctx context.Context, opts CreateInboxOptions) (*Inbox, error) {
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("create inbox: %w", err)
	}
	info, err := c.ServerInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("create inbox: %w", err)
	}
	body := model.CreateInboxRequest{
		TTL:          int(opts.TTL / time.Second),
		EmailAddress: opts.EmailAddress,
		Encryption:   opts.Encryption,
		EmailAuth:    opts.EmailAuth,
	}
	var keys crypto.KeyPair
	if info.EncryptionFor(opts.Encryption) {
		if keys, err = crypto.GenerateKeyPair(); err != nil {
			return nil, fmt.Errorf("create inbox: %w", err)
		}
		body.ClientKemPk = crypto.EncodeBase64URL(keys.PublicKey)
	}
	var res model.CreateInboxResponse
	err = c.do(ctx, request{method: http.MethodPost, path: "/api/inboxes", body: body, out: &res})
	var refused *RefusedError
	if errors.As(err, &refused) && refused.status.StatusCode == http.StatusConflict {
		err = &AddressTakenError{Address: opts.EmailAddress, refused: refused}
	}
	if err != nil {
		return nil, fmt.Errorf("create inbox: %w", err)
	}
	in, err := c.inboxFromCreate(res, keys, info)
	if err != nil {
		return nil, fmt.Errorf("create inbox: %w", err)
	}
	if err := c.loaded.add(in, true); err != nil {
		return nil, err
	}
	return in, nil
}

// inboxFromCreate builds the loaded inbox from a create answer.
func (c *Client) inboxFromCreate(res model.CreateInboxResponse, keys crypto.KeyPair, info model.ServerInfo) (*Inbox, error) {
	if res.EmailAddress == "" {
		return nil, errors.New("the server's answer names no email address")
	}
	emailAuth := res.EmailAuth
	in := &Inbox{c: c, info: res, emailAuth: &emailAuth}
	if !res.Encrypted {
		if in.info.InboxHash == "" {
			in.info.InboxHash = crypto.PlainInboxHash(res.EmailAddress)
		}
		in.info.ServerSigPk = ""
		return in, nil
	}
	if keys.SecretKey == nil {
		return nil, errors.New("the server made the inbox encrypted although its policy said plain, so no key pair was sent")
	}
	pinned := res.ServerSigPk
	if pinned == "" {
		pinned = info.ServerSigPk
	}
	serverKey, err := crypto.DecodeBase64URL(pinned)
	if err != nil || len(serverKey) != crypto.SigPublicKeySize {
		return nil, fmt.Errorf("the server sent an unusable signing key (%d bytes)", len(serverKey))
	}
	in.secretKey = keys.SecretKey
	in.serverKey = serverKey
	in.info.ServerSigPk = pinned
	if in.info.InboxHash == "" {
		in.info.InboxHash = crypto.InboxHash(keys.PublicKey)
	}
	if err := in.setOpener(info.EncryptionContext()); err != nil {
		return nil, fmt.Errorf("inbox %s: %w", in.info.EmailAddress, err)
	}
	return in, nil
}

// DeleteInbox deletes the inbox on the server (deleting a missing inbox
// succeeds) and forgets it locally. The keystore is left alone.
func (c *Client) DeleteInbox(ctx context.Context, address string) error {
	err := c.do(ctx, request{method: http.MethodDelete, path: inboxPath(address), notFound: inboxNotFound(address)})
	var notFound *InboxNotFoundError
	if err != nil && !errors.As(err, &notFound) {
		return fmt.Errorf("delete inbox %s: %w", address, err)
	}
	c.loaded.remove(address)
	return nil
}

// DeleteAllInboxes deletes every inbox of the API key on the server,
// forgets all loaded inboxes and returns the server's count.
func (c *Client) DeleteAllInboxes(ctx context.Context) (int, error) {
	var res model.DeleteAllResponse
	if err := c.do(ctx, request{method: http.MethodDelete, path: "/api/inboxes", out: &res}); err != nil {
		return 0, fmt.Errorf("delete all inboxes: %w", err)
	}
	c.loaded.clear()
	return res.Deleted, nil
}

// Delete deletes the inbox on the server and forgets it locally.
func (i *Inbox) Delete(ctx context.Context) error {
	return i.c.DeleteInbox(ctx, i.info.EmailAddress)
}

// SyncStatus returns the inbox's email count and emails hash.
func (i *Inbox) SyncStatus(ctx context.Context) (model.SyncStatus, error) {
	return i.syncStatus(ctx, true)
}

// syncStatus fetches the sync status, with the client's retries or in one
// attempt.
func (i *Inbox) syncStatus(ctx context.Context, retry bool) (model.SyncStatus, error) {
	var res model.SyncStatus
	err := i.c.do(ctx, request{
		method:   http.MethodGet,
		path:     inboxPath(i.info.EmailAddress) + "/sync",
		out:      &res,
		notFound: inboxNotFound(i.info.EmailAddress),
		once:     !retry,
	})
	return res, err
}

// MarkRead marks an email as read.
func (i *Inbox) MarkRead(ctx context.Context, id string) error {
	return i.c.do(ctx, request{
		method:   http.MethodPatch,
		path:     emailPath(i.info.EmailAddress, id) + "/read",
		notFound: emailNotFound(i.info.EmailAddress, id),
	})
}

// DeleteEmail deletes an email.
func (i *Inbox) DeleteEmail(ctx context.Context, id string) error {
	return i.c.do(ctx, request{
		method:   http.MethodDelete,
		path:     emailPath(i.info.EmailAddress, id),
		notFound: emailNotFound(i.info.EmailAddress, id),
	})
}
