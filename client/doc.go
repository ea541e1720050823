// Package client is sandview's client of the email sandbox service: the only
// code that speaks HTTP to a service. It follows the service's client
// contract and is liberal about how deployed servers deviate from it (the
// recorded traffic under testdata/reference-deployment shows how).
//
// # Requests
//
// Every call takes a context. Requests carry X-API-Key and are bounded by
// Options.Timeout each (applied per attempt through the request context, so
// the client's own http.Client has no Timeout and the same client can hold
// a long-lived event stream). Statuses in Options.RetryOn and network
// failures are retried up to MaxRetries times; retry n waits
// RetryDelay·2^n, or the server's Retry-After (seconds or HTTP date) when
// that is longer, capped at 60 s. A per-attempt timeout is not retried: it
// returns *TimeoutError at once. Other statuses fail at once.
//
// # Errors
//
// One Go type per contract class: *APIError, *NetworkError, *TimeoutError,
// *InboxNotFoundError, *EmailNotFoundError, *InboxAlreadyExistsError,
// *InvalidImportDataError, *DecryptionError, *SignatureVerificationError
// (parent of *ServerKeyMismatchError), *SSEError, *StrategyError,
// *RateLimitedError, *UnauthorizedError and ErrClientClosed. Errors that
// come from an HTTP status unwrap to an *APIError. A 404 maps by route:
// inbox routes give *InboxNotFoundError, email routes *EmailNotFoundError
// unless the message says the inbox is missing. Messages are one line
// that says what to do.
//
// # Mail
//
// Emails come back decrypted (encrypted inboxes, one crypto.Opener per inbox
// built with the server-info context string) or decoded (plain inboxes) as
// model.Email. Lists are sorted newest first; records that cannot be opened
// stay in the list with Problem set (an email whose metadata opened but
// whose content did not keeps its subject and sender). A list body is split
// into records by a fast structural scan; from parallelOpenThreshold records
// on, records are decoded and opened by GOMAXPROCS workers. Raw messages are
// unwrapped from base64 as often as the server wrapped them (see
// unwrapMessage).
//
// Webhook calls take inboxEmail "" for the global scope and accept any 2xx.
// SendTestEmail sends the contract's form and falls back to the deployments'
// nested form on 400.
//
// # Export, import, keystore
//
// ValidateExport runs the contract's import steps 1-9 in order. Import then
// rejects an inbox already loaded (same address or hash) and, for an
// encrypted inbox, compares its serverSigPk with the server's current key
// (ERROR_SERVER_KEY_MISMATCH). That check is skipped when the server cannot
// be reached (*NetworkError or *TimeoutError), so saved inboxes load
// offline; the opener is then built on first use. Keystore keeps one
// export file per inbox under DefaultHome()/inboxes/<host_port>; Config is
// the small url+API key file. Files are 0600 in 0700 directories and are
// written atomically.
//
// # Seams for delivery
//
// The delivery code (OnNewEmail, Watch, WaitFor*, WatchInboxes, ConnState)
// lives in its own files of this package and builds on:
//
//   - Client.ctx: lives as long as the client; Close cancels it. Background
//     work runs under it; Client.isClosed reports Close.
//   - Client.do(ctx, request{...}): one API call with retries and error
//     mapping; Client.newRequest builds an authenticated request for
//     streams (no retries, no per-request timeout).
//   - Client.Inboxes, Client.inboxByHash and Client.onRegistryChange: the
//     loaded inboxes (with their hashes) and a hook called after every
//     change, to reconnect the stream with the new hash list.
//   - Client.reportSyncError: hands background errors to
//     Options.OnSyncError.
//   - Inbox.OpenStreamEvent / Inbox.OpenRecord / Inbox.Emails: decoding.
package client
