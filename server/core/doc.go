// Package core is the sandbox service's domain, with no transport in it:
// the live inboxes (registry, a cache of the store's), the arrival of mail
// (parsing, authentication checks, spam score, sealing, storing:
// Core.Arrive), deferred signatures (signer), the sweep (expiry, storage
// limits, orphaned signatures: sweep.go), the catch-all inbox, email ids
// and the internal event bus.
//
// A Core runs on the store.Store the composition root opens and hands it
// (Options.Store); it imports no store implementation and has one path
// for every store: it takes its keys from the store (store.Cluster's
// Secret), finds, lists and deletes inboxes through it, takes the other
// processes' changes from its feed (notices.go), and, when the store
// says it leads, has it expire inboxes and enforce the storage limits.
//
// The transports call it: server/httpapi (the HTTP API and the event
// stream) and server/smtpd (the SMTP session). It tells the webhook engine
// of its events through the Webhooks interface; the composition root
// (package server) wires them together.
package core
