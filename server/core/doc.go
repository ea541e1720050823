// Package core is the sandbox service's domain, with no transport in it:
// the live inboxes and the accounting of their emails for the storage
// limits (registry), the arrival of mail (parsing, authentication checks,
// spam score, sealing, storing: Core.Arrive), deferred signatures
// (signer), the sweep of expired inboxes, the catch-all inbox, email ids
// and the internal event bus.
//
// A Core runs on its own store (memory, or bbolt with Options.DataDir) or
// as one replica of several sharing PostgreSQL (Options.StoreURL); the
// choice is made once, when it opens, as its mode (see mode, local and
// replica), and nothing else asks which one it is.
//
// The transports call it: server/httpapi (the HTTP API and the event
// stream) and server/smtpd (the SMTP session). It tells the webhook engine
// of its events through the Webhooks interface; the composition root
// (package server) wires them together.
package core
