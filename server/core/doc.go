// Package core is the sandbox service's domain, with no transport in it:
// the live inboxes and the accounting of their emails for the storage
// limits (registry), the arrival of mail (parsing, authentication checks,
// spam score, sealing, storing: Core.Arrive), deferred signatures
// (signer), the sweep of expired inboxes, the catch-all inbox, email ids
// and the internal event bus.
//
// A Core runs on the store.Store the composition root opens and hands it
// (Options.Store); it imports no store implementation. On a store of its
// own (memory or bbolt) it is local; on a store.Shared (PostgreSQL) it is
// one replica of several. The choice is made once, when it opens, from the
// kind of store, as its mode (see mode, local and replica), and nothing
// else asks which one it is.
//
// The transports call it: server/httpapi (the HTTP API and the event
// stream) and server/smtpd (the SMTP session). It tells the webhook engine
// of its events through the Webhooks interface; the composition root
// (package server) wires them together.
package core
