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
// *RateLimitedError, *UnauthorizedError, *RefusedError (any other 4xx but
// 408, with the server's reason; parent of *AddressTakenError, a 409 on
// creating an inbox, and of *InvalidWebhookError, a refused webhook create
// or update with the fields at fault), ErrClientClosed and ErrNoService (no service
// connected). Errors that come from an HTTP status unwrap to an
// *APIError. A 404 maps by route:
// inbox routes give *InboxNotFoundError, email routes *EmailNotFoundError
// unless the message says the inbox is missing. Messages are one line
// that says what to do.
//
// # Mail
//
// Emails come back decrypted (encrypted inboxes, one crypto.Opener per inbox
// built with the server-info context string) or decoded (plain inboxes) as
// model.Email. Records that cannot be opened stay in the list with Problem
// set (an email whose metadata opened but whose content did not keeps its
// subject and sender). An inbox known as encrypted never decodes plain
// fields: a record, raw answer or stream event carrying them, or lacking
// its encrypted payload, is a *DecryptionError (no downgrade), and a wait
// that meets such an email ends with that error. A list is read as it arrives (EachEmail): the
// standard JSON decoder takes one record at a time off the body, GOMAXPROCS
// workers open them with a few in flight each, and they are handed on in
// the server's order (newest first); Emails collects them and sorts by
// receivedAt. For a streamed body Options.Timeout bounds each wait for more
// of it, not the consumer's time. Raw messages are unwrapped from base64 as
// often as the server wrapped them (see unwrapMessage).
//
// Webhook calls (Client.Webhooks, a WebhooksService) take inboxEmail "" for the global scope and accept any 2xx.
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
// offline; the opener is then built on first use. SaveExport writes an
// export file 0600, atomically; package keystore keeps such files per
// server, and the config file, under sandview's home.
//
// # Live mail
//
// OnNewEmail, Watch, WatchInboxes, WatchAll, WatchAllDirect, WaitFor* and
// ConnState are served by the watch engine (package client/internal/watch:
// event stream, polling, fallback, no email twice), through the embedded
// live type (live.go). WatchAllDirect calls its handlers on the engine's
// delivering goroutines, so that a UI's own queue is the only one mail
// crosses; with MonitorHandlers.MetadataOnly it hands over new mail as
// the event stream's notification or the inbox's listing has it (no fetch
// per mail: the UI fetches what it shows). The engine sees the client
// only through two interfaces, implemented in engine.go: watch.Client
// (open the event stream, report background errors) and watch.Inbox
// (list ids and the metadata of new ones, fetch and open one email, open
// a notification, poll once).
// The client tells it when the loaded inboxes change, and when a listing
// answers that an inbox is not found: the engine then ends that inbox's
// watch (it is gone; Monitor.OnGone tells a UI) and goes on with the
// others, as it does when a stream open is refused for unknown inboxes.
// Subscriptions are watch.Callbacks. Reconnect cuts a reconnect wait short;
// WithSSEBackoff caps and jitters the reconnect delay (the contract's
// defaults leave it uncapped and exact). WaitForEmailCount returns its
// emails oldest first by receivedAt, then id.
package client
