package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"sandview/model"
)

// Chaos calls: an inbox's fault injection (../shared/spec/chaos.md,
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

// chaos makes one call on the inbox's chaos route.
func (i *Inbox) chaos(ctx context.Context, what, method string, body, out any) error {
	err := i.c.do(ctx, request{
		method:   method,
		path:     inboxPath(i.info.EmailAddress) + "/chaos",
		body:     body,
		out:      out,
		notFound: inboxNotFound(i.info.EmailAddress),
	})
	var status *APIError
	if errors.As(err, &status) && status.StatusCode == http.StatusForbidden {
		err = &ChaosDisabledError{status: status}
	}
	if err != nil {
		return fmt.Errorf("%s of %s: %w", what, i.info.EmailAddress, err)
	}
	return nil
}

// Chaos returns the inbox's chaos config as the server stores it
// ({"enabled": false} when none was set).
func (i *Inbox) Chaos(ctx context.Context) (model.ChaosConfig, error) {
	var res model.ChaosConfig
	err := i.chaos(ctx, "get chaos", http.MethodGet, nil, &res)
	return res, err
}

// SetChaos replaces the inbox's chaos config (sub-objects left nil are
// removed) and returns it normalized, defaults filled in.
func (i *Inbox) SetChaos(ctx context.Context, cfg model.ChaosConfig) (model.ChaosConfig, error) {
	var res model.ChaosConfig
	err := i.chaos(ctx, "set chaos", http.MethodPost, cfg, &res)
	return res, err
}

// DisableChaos switches the inbox's chaos off: the server keeps
// {"enabled": false}.
func (i *Inbox) DisableChaos(ctx context.Context) error {
	return i.chaos(ctx, "disable chaos", http.MethodDelete, nil, nil)
}
