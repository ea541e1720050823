package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"sandview/model"
)

// Chaos calls: an inbox's fault injection (the chaos spec,
// section 2). The server answers 403 while its chaos switch is off;
// that answer is a *ChaosDisabledError.

// ChaosDisabledError is a 403 on a chaos route: the server runs with
// chaos switched off (start it with --chaos, or SVC_CHAOS_ENABLED=true).
// It unwraps to the *APIError.
type ChaosDisabledError struct {
	status *APIError
}

func (e *ChaosDisabledError) Error() string {
	return "chaos is disabled on this server: start it with --chaos (or SVC_CHAOS_ENABLED=true)"
}

func (e *ChaosDisabledError) Unwrap() error { return statusError(e.status) }

// InboxChaos is the chaos route of one inbox address. The server keys
// chaos by address alone: no inbox keys are needed.
type InboxChaos struct {
	c       *Client
	address string
}

// Chaos returns the calls on the chaos config of the inbox at address,
// whether or not its keys are loaded.
func (c *Client) Chaos(address string) InboxChaos { return InboxChaos{c, address} }

// Chaos returns the calls on the inbox's chaos config.
func (i *Inbox) Chaos() InboxChaos { return i.c.Chaos(i.info.EmailAddress) }

// call makes one call on the inbox's chaos route.
func (k InboxChaos) call(ctx context.Context, what, method string, body, out any) error {
	err := k.c.do(ctx, request{
		method:   method,
		path:     inboxPath(k.address) + "/chaos",
		body:     body,
		out:      out,
		notFound: inboxNotFound(k.address),
	})
	var status *APIError
	if errors.As(err, &status) && status.StatusCode == http.StatusForbidden {
		err = &ChaosDisabledError{status: status}
	}
	if err != nil {
		return fmt.Errorf("%s of %s: %w", what, k.address, err)
	}
	return nil
}

// Get returns the inbox's chaos config as the server stores it
// ({"enabled": false} when none was set).
func (k InboxChaos) Get(ctx context.Context) (model.ChaosConfig, error) {
	var res model.ChaosConfig
	err := k.call(ctx, "get chaos", http.MethodGet, nil, &res)
	return res, err
}

// Set replaces the inbox's chaos config (sub-objects left nil are
// removed) and returns it normalized, defaults filled in.
func (k InboxChaos) Set(ctx context.Context, cfg model.ChaosConfig) (model.ChaosConfig, error) {
	var res model.ChaosConfig
	err := k.call(ctx, "set chaos", http.MethodPost, cfg, &res)
	return res, err
}

// Disable switches the inbox's chaos off: the server keeps
// {"enabled": false}.
func (k InboxChaos) Disable(ctx context.Context) error {
	return k.call(ctx, "disable chaos", http.MethodDelete, nil, nil)
}
