// Package server is sandview's embedded sandbox service: a receive-only SMTP
// server and the HTTP API of http-interface.md (inboxes, emails, sync, server
// info, check-key, the test-email endpoint and the event stream), in one
// process.
//
// This package is the composition root: Config, the listeners, Start and
// the shutdown. The service itself is a core and its transports:
//   - server/core, the domain with no transport code: live inboxes, the
//     arrival of mail, deferred signing, the sweep, the catch-all, email
//     ids and the event bus, the same on every store (on PostgreSQL one
//     replica of several);
//   - server/httpapi, the HTTP API, which registers itself on a mux beside
//     the routes of the webhook engine (server/webhook);
//   - server/smtpd, the SMTP session.
//
// Start runs it on any addresses (port 0 included) for `sandview serve`, the
// TUI's --local mode and tests. Mail is parsed by server/mailparse, checked
// by server/emailauth (its DNS through the caching client of
// server/dnsresolve), encrypted to the inbox's key for encrypted inboxes
// (signed at once for the metadata, just after the SMTP answer for the
// parsed and raw payloads unless Config.SignAtIngest; see the core's
// signer), kept in the one store Start opens and hands to the core and the
// webhook engine (server/store/memory, server/store/bolt with
// Config.DataDir, or server/store/postgres shared by replicas with
// Config.StoreURL: see stores.go and the core's sweep.go), and announced
// on an internal event Bus that the event stream and webhooks read.
//
// An encrypted email is kept as crypto.Sealed payloads: bytes, not
// base64url text, without the server key (added when served) and with one
// ML-KEM ciphertext for all three, carried by the metadata payload (each
// payload has its own nonce and, through HKDF's aad-bound info, its own
// key). Payloads stored as EncryptedPayload JSON by earlier versions are
// served as stored, and become sealed ones when signed. Lists are read
// from the store and written out a page at a time.
//
// Choices where the contract is silent:
//   - POST /api/inboxes answers 201; asking for an address (or a client key)
//     that is already in use answers 409.
//   - DELETE /api/inboxes/{email} answers 204 for an unknown inbox too.
//   - GET /api/events without `inboxes` answers 400; unknown hashes are
//     accepted and simply never match. Heartbeats are
//     `data: {"type":"heartbeat","timestamp":"..."}` messages.
//   - POST /api/test/emails is 404 unless Config.HTTP.Dev; it accepts the
//     contract's top-level auth fields and the deployed nested `auth` form
//     (one of the two; reverseDns a boolean or pass, fail, none), defaults
//     every unchosen check to pass, and answers 201 {emailId} (any 2xx is
//     allowed; the deployments and the official SDKs' tests use 201). An
//     inbox with emailAuth false still gets `skipped` everywhere.
//   - A request body property the contract does not name answers 400
//     naming it (httpapi.DecodeBody). Config.Compat picks the wire profile
//     where the contract and the reference deployment differ (see Compat).
//   - Sync emailsHash is base64url(SHA-256 of the sorted email ids joined by
//     "\n"); an empty inbox hashes the empty string.
//   - Email ids sort in arrival order: 16 hex digits of the clock in
//     nanoseconds (kept increasing), then 8 random hex digits.
//   - Sealed payloads use the aad "<prefix>:metadata", ":parsed" and ":raw",
//     where prefix is the context up to its first colon ("service"); the raw
//     payload's plaintext is base64 text of the RFC 5322 message, as on the
//     reference deployment (emails stored by earlier versions keep the
//     message itself; the client reads both).
//   - Email metadata JSON carries id, from, to, subject and receivedAt;
//     `to` lists the To header's recipients, or the envelope recipients
//     when the header names none (see Compat for the reference profile's).
//   - Every stored message gets a Received trace header on top (see
//     core's receivedValue), in the raw source and the parsed headers alike; the
//     authentication checks read the message as it arrived.
//   - Config.CatchAll (or SetCatchAll) names an inbox that takes SMTP mail
//     for any address, in any domain, that no inbox matches.
//   - SMTP: at most 100 recipients, 2000-byte lines (500 beyond), a header
//     section of at most 1 MiB and 2000 fields (552 beyond), MaxMessageBytes
//     (552). Without a catch-all, an unknown or expired inbox, or a domain
//     not served, is 550 with the reason. A message to several inboxes is
//     stored once per inbox (the catch-all's once for all the recipients it
//     takes); 250 is answered once every copy is committed. Each reply
//     leaves in one write, multi-line ones (EHLO) included.
//   - SMTP is bounded (server/smtpd's limits.go, data.go): connection caps in
//     total and per client IP (421 beyond), an idle timeout, messages
//     being received held in a shared memory budget (a DATA waits for
//     room), a declared SIZE over the limit refused at MAIL, the rest of an
//     oversized DATA discarded unread into memory. Refusals are kept in a
//     ring (Server.Refusals, WatchRefusals); refused connections are
//     logged once per interval. AUTH PLAIN and LOGIN take any login, or an
//     htpasswd file's (server/smtpd's auth.go); the user name is kept with
//     the mail.
//   - Authentication checks run after parsing, within Config.AuthBudget,
//     and the 250 waits for them, so that a mail is retrievable, checked,
//     once SMTP accepts it. The DNS cache makes the checks nearly free for
//     the few sender domains test mail comes from; a new domain costs one
//     round of queries, never more than the budget, and a silent DNS server
//     costs each mail nothing once its failure is held down.
//   - Storage limits evict the oldest emails: first of each inbox
//     (MaxEmailsPerInbox), then of all inboxes (MaxStoreBytes, counting the
//     stored payload bytes), at the sweep (every SweepInterval), so they
//     may be exceeded until it runs; an email larger than MaxStoreBytes
//     alone is evicted too.
package server
