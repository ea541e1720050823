package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"sandview/crypto"
	"sandview/model"
)

// EncryptedInboxError is the answer of OpenPlainInbox for an inbox whose
// mail is encrypted: reading it needs its secret key (an export of it).
type EncryptedInboxError struct {
	Address string
}

func (e *EncryptedInboxError) Error() string {
	return fmt.Sprintf("inbox %s is encrypted: reading it needs its secret key (import an export of it)", e.Address)
}

// errFirstRecordRead ends the read of a list after its first record.
var errFirstRecordRead = errors.New("first record read")

// OpenPlainInbox loads the plain inbox at address with the API key alone,
// without an export: a plain inbox holds no secret, so its address is all
// a reader needs (a shared catch-all, an inbox another program created).
// An inbox already loaded is returned as it is.
//
// The server is asked for the inbox's list of emails: a 404 is
// *InboxNotFoundError, and an inbox whose mail is encrypted is
// *EncryptedInboxError. An empty inbox is encrypted when the event stream
// refuses its plain hash as naming no inbox (400, as the reference
// deployment and sandview's server answer); a server that takes any hash
// leaves an empty encrypted inbox looking plain, and its mail, once it
// arrives, is a DecryptionError like any this client cannot open. The
// inbox hash is the one the server's records carry, else the plain hash
// of the address (the service's naming of plain inboxes). The service
// does not say when a plain inbox expires: ExpiresAt is an estimate, now
// plus the server's maxTtl (no inbox created now outlives that; a server
// renews its catch-all). The inbox is loaded with no emailAuth setting
// known.
func (c *Client) OpenPlainInbox(ctx context.Context, address string) (*Inbox, error) {
	if in, ok := c.Inbox(address); ok {
		return in, nil
	}
	info, err := c.ServerInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("open inbox %s: %w", address, err)
	}
	first, err := c.firstRecord(ctx, address)
	if err != nil {
		return nil, fmt.Errorf("open inbox %s: %w", address, err)
	}
	in := &Inbox{c: c, info: model.Inbox{
		EmailAddress: address,
		InboxHash:    crypto.PlainInboxHash(address),
		ExpiresAt:    time.Now().Add(time.Duration(info.MaxTTL) * time.Second).UTC().Truncate(time.Millisecond),
	}}
	switch {
	case first != nil && first.Encrypted():
		return nil, &EncryptedInboxError{Address: address}
	case first != nil && first.InboxID != "":
		in.info.InboxHash = first.InboxID
	case first == nil && !c.streamKnows(ctx, in.info.InboxHash):
		return nil, &EncryptedInboxError{Address: address}
	}
	if err := c.loaded.add(in, false); err != nil {
		return nil, err
	}
	return in, nil
}

// firstRecord returns the first email record of the inbox at address
// (metadata only), or nil when it holds none. Only that record is read.
func (c *Client) firstRecord(ctx context.Context, address string) (*model.EmailRecord, error) {
	var first *model.EmailRecord
	err := c.do(ctx, request{
		method:   http.MethodGet,
		path:     inboxPath(address) + "/emails",
		query:    url.Values{"includeContent": {"false"}},
		notFound: inboxNotFound(address),
		read: func(body io.Reader) error {
			return decodeList(body, func(rec model.EmailRecord, err error) error {
				if err != nil {
					return fmt.Errorf("the server sent an email record that cannot be decoded: %w", err)
				}
				first = &rec
				return errFirstRecordRead
			})
		},
	})
	if errors.Is(err, errFirstRecordRead) {
		err = nil
	}
	return first, err
}

// streamKnows reports whether the event stream takes a subscription to the
// inbox hash: false only when it refuses it with 400 (no inbox it knows);
// any other failure says nothing, and counts as true.
func (c *Client) streamKnows(ctx context.Context, hash string) bool {
	body, err := engineClient{c}.OpenStream(ctx, []string{hash})
	if err == nil {
		_ = body.Close()
		return true
	}
	var status *APIError
	return !errors.As(err, &status) || status.StatusCode != http.StatusBadRequest
}
