// Package core is the sandbox service's domain, with no transport in it:
// the live inboxes and the accounting of their emails for the storage
// limits (registry), the arrival of mail (parsing, authentication checks,
// spam score, sealing, storing: Core.Arrive), deferred signatures
// (signer), the sweep of expired inboxes, the catch-all inbox, email ids
// and the internal event bus.
//
// A Core runs on the store.Store the composition root opens and hands it
// (Options.Store); it imports no store implementation. It finds, lists
// and deletes inboxes through the store, and takes the other processes'
// changes from the store's feed (notices.go), whatever the store. What
// still differs between a store of its own (memory or bbolt) and a
// store.Shared (PostgreSQL, one replica of several) is chosen once, when
// it opens, as its mode (see mode, local and replica): accounting the
// stored emails at start, the sweep, the keys and looking up addresses
// its registry does not hold.
//
// The transports call it: server/httpapi (the HTTP API and the event
// stream) and server/smtpd (the SMTP session). It tells the webhook engine
// of its events through the Webhooks interface; the composition root
// (package server) wires them together.
package core
