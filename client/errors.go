package client

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"sandview/crypto"
)

// APIError is a non-2xx answer of the service that no more specific error
// class describes. The specific classes that come from an HTTP status
// (UnauthorizedError, InboxNotFoundError, EmailNotFoundError,
// RateLimitedError, RefusedError and its children) unwrap to an *APIError, so errors.As(err, **APIError)
// works for every error that carries a status.
type APIError struct {
	StatusCode int
	Message    string
	RequestID  string
	// Op names the request, e.g. "GET /api/inboxes/x@y/emails".
	Op string
}

func (e *APIError) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "the server answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request id %s)", e.RequestID)
	}
	return b.String()
}

// NetworkError means the server could not be reached (refused, reset, DNS
// failure, TLS failure) after all retries.
type NetworkError struct {
	// URL is the base URL of the server that could not be reached.
	URL string
	Err error
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("cannot reach %s: %s — is the server running?", e.URL, networkCause(e.Err))
}

func (e *NetworkError) Unwrap() error { return e.Err }

// networkCause names the innermost reason of a transport failure, e.g.
// "connection refused" or "no such host".
func networkCause(err error) string {
	if err == nil {
		return "network failure"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Sprintf("cannot resolve %s (%s)", dnsErr.Name, dnsErr.Err)
	}
	var sysErr *os.SyscallError
	if errors.As(err, &sysErr) {
		return sysErr.Err.Error()
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		return opErr.Err.Error()
	}
	return err.Error()
}

// TimeoutError is a request that did not complete within Options.Timeout,
// or a wait that ended without its condition being met.
type TimeoutError struct {
	Op string
	// After is how long was waited; zero when unknown.
	After time.Duration
}

func (e *TimeoutError) Error() string {
	if e.After > 0 {
		return fmt.Sprintf("%s timed out after %s — the server is slow or unreachable; try again or raise the timeout", e.Op, e.After)
	}
	return fmt.Sprintf("%s timed out", e.Op)
}

// InboxNotFoundError is a 404 on an inbox route: the inbox does not exist
// on the server (deleted or expired).
type InboxNotFoundError struct {
	Address string
	status  *APIError
}

func (e *InboxNotFoundError) Error() string {
	return fmt.Sprintf("inbox %s not found on the server (it may have expired or been deleted)", e.Address)
}

func (e *InboxNotFoundError) Unwrap() error { return statusError(e.status) }

// EmailNotFoundError is a 404 on an email route.
type EmailNotFoundError struct {
	ID     string
	status *APIError
}

func (e *EmailNotFoundError) Error() string {
	return fmt.Sprintf("email %s not found on the server (it may have been deleted)", e.ID)
}

func (e *EmailNotFoundError) Unwrap() error { return statusError(e.status) }

// InboxAlreadyExistsError is an import of an inbox that is already loaded
// (same address or same inbox hash).
type InboxAlreadyExistsError struct {
	Address string
}

func (e *InboxAlreadyExistsError) Error() string {
	return fmt.Sprintf("inbox %s is already loaded; remove it before importing it again", e.Address)
}

// Import validation codes (client contract, import steps 2-8) and the
// server-key check sandview adds after them.
const (
	ErrCodeUnsupportedVersion    = "ERROR_UNSUPPORTED_VERSION"
	ErrCodeInvalidEmail          = "ERROR_INVALID_EMAIL"
	ErrCodeInvalidInboxHash      = "ERROR_INVALID_INBOX_HASH"
	ErrCodeInvalidEncryptedField = "ERROR_INVALID_ENCRYPTED_FIELD"
	ErrCodeMissingSecretKey      = "ERROR_MISSING_SECRET_KEY"
	ErrCodeInvalidSecretKey      = "ERROR_INVALID_SECRET_KEY"
	ErrCodeInvalidSecretKeySize  = "ERROR_INVALID_SECRET_KEY_SIZE"
	ErrCodeMissingServerKey      = "ERROR_MISSING_SERVER_KEY"
	ErrCodeInvalidServerKey      = "ERROR_INVALID_SERVER_KEY"
	ErrCodeInvalidServerKeySize  = "ERROR_INVALID_SERVER_KEY_SIZE"
	// ErrCodeServerKeyMismatch: the export's serverSigPk is not the signing
	// key the server reports now (the inbox belongs to another server).
	ErrCodeServerKeyMismatch = "ERROR_SERVER_KEY_MISMATCH"
)

// InvalidImportDataError is exported inbox data that fails validation.
// Code is one of the ErrCode* constants, or "" for the checks the contract
// gives no code (invalid JSON, missing fields, bad timestamps).
type InvalidImportDataError struct {
	Code   string
	Reason string
}

func (e *InvalidImportDataError) Error() string {
	if e.Code == "" {
		return "invalid inbox import data: " + e.Reason
	}
	return fmt.Sprintf("invalid inbox import data (%s): %s", e.Code, e.Reason)
}

// DecryptionError is an email payload that could not be opened. The message
// is deliberately generic: it does not say which step failed.
type DecryptionError struct {
	EmailID string
}

func (e *DecryptionError) Error() string { return "decryption failed" }

func (e *DecryptionError) Unwrap() error { return crypto.ErrDecryptionFailed }

// SignatureVerificationError is a payload whose server signature could not
// be accepted. ServerKeyMismatchError is its child class: errors.As with a
// *SignatureVerificationError target also matches a mismatch.
type SignatureVerificationError struct {
	EmailID string
	Err     error
}

// Error is the one generic "decryption failed": which check failed is told
// by the class and by Err, never by the text (SECURITY.md).
func (e *SignatureVerificationError) Error() string { return "decryption failed" }

func (e *SignatureVerificationError) Unwrap() error { return e.Err }

// ServerKeyMismatchError is a payload signed with a server key other than
// the one pinned when the inbox was created.
type ServerKeyMismatchError struct {
	EmailID string
}

// Error is the one generic "decryption failed" (SECURITY.md): a key swap
// reads like any other failure; errors.As tells it.
func (e *ServerKeyMismatchError) Error() string { return "decryption failed" }

// Unwrap returns the parent class, which itself unwraps to
// crypto.ErrServerKeyMismatch.
func (e *ServerKeyMismatchError) Unwrap() error {
	return &SignatureVerificationError{EmailID: e.EmailID, Err: crypto.ErrServerKeyMismatch}
}

// SSEError is a failure of the event stream.
type SSEError struct {
	Err error
}

func (e *SSEError) Error() string {
	if e.Err == nil {
		return "event stream failed"
	}
	return "event stream failed: " + e.Err.Error()
}

func (e *SSEError) Unwrap() error { return e.Err }

// StrategyError is a delivery strategy that cannot be used or failed for
// good.
type StrategyError struct {
	Strategy Strategy
	Reason   string
	Err      error
}

func (e *StrategyError) Error() string {
	msg := fmt.Sprintf("delivery strategy %q: %s", e.Strategy, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *StrategyError) Unwrap() error { return e.Err }

// RateLimitedError is a 429 that persisted through all retries.
type RateLimitedError struct {
	// RetryAfter is the server's last Retry-After; zero when it sent none.
	RetryAfter time.Duration
	status     *APIError
}

func (e *RateLimitedError) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("the server is rate limiting this API key (429); try again in %s", e.RetryAfter)
	}
	return "the server is rate limiting this API key (429); try again later"
}

func (e *RateLimitedError) Unwrap() error { return statusError(e.status) }

// UnauthorizedError is a 401: the API key is missing or wrong.
type UnauthorizedError struct {
	status *APIError
}

func (e *UnauthorizedError) Error() string {
	return "the server rejected the API key (401): it is wrong or was revoked"
}

func (e *UnauthorizedError) Unwrap() error { return statusError(e.status) }

// RefusedError is a 4xx answer that no more specific class describes
// (400, 403, 409, 422, …): the server understood the request and will not
// do it. Reason is the server's explanation ("" when it gave none), one
// line naming what was refused and why. It unwraps to the *APIError.
type RefusedError struct {
	Reason string
	status *APIError
}

func (e *RefusedError) Error() string {
	if e.status != nil {
		return e.status.Error()
	}
	return "the server refused the request: " + e.Reason
}

func (e *RefusedError) Unwrap() error { return statusError(e.status) }

// AddressTakenError is a 409 on creating an inbox: the address asked for
// is in use on the server (by another inbox, or a plain catch-all that can
// be attached with OpenPlainInbox). Its parent class is *RefusedError.
type AddressTakenError struct {
	Address string
	refused *RefusedError
}

func (e *AddressTakenError) Error() string {
	if e.refused != nil {
		return e.refused.Error()
	}
	return fmt.Sprintf("the address %s is in use on the server", e.Address)
}

// Unwrap returns the parent class, which itself unwraps to the *APIError
// (when the error came from an answer).
func (e *AddressTakenError) Unwrap() error {
	if e.refused == nil {
		return &RefusedError{Reason: e.Error()}
	}
	return e.refused
}

// NoServiceError is the error of a call made where no service is
// connected: a program started without a client, or a zero
// WebhooksService (one not taken from a Client).
type NoServiceError struct{}

func (e *NoServiceError) Error() string { return "no service connected" }

// Is makes every *NoServiceError match ErrNoService.
func (e *NoServiceError) Is(target error) bool {
	_, ok := target.(*NoServiceError)
	return ok
}

// ErrNoService is the error of calls made where no service is connected;
// compare with errors.Is.
var ErrNoService = &NoServiceError{}

// ClientClosedError is returned by calls made after Client.Close.
type ClientClosedError struct{}

func (e *ClientClosedError) Error() string { return "the client is closed" }

// Is makes every *ClientClosedError match ErrClientClosed.
func (e *ClientClosedError) Is(target error) bool {
	_, ok := target.(*ClientClosedError)
	return ok
}

// ErrClientClosed is the error of calls made after Client.Close; compare
// with errors.Is.
var ErrClientClosed = &ClientClosedError{}

// statusError returns e as an error, or a nil interface when e is nil (so
// Unwrap of an error built without a status ends the chain).
func statusError(e *APIError) error {
	if e == nil {
		return nil
	}
	return e
}
