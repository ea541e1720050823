// Package webhookrecv is a small built-in webhook receiver: it listens on a
// local address, verifies each delivery's signature and timestamp, and
// hands the deliveries to the caller on a channel. It backs
// `sandview webhook listen` and the TUI's webhook pane.
//
// It accepts the headers of any deployment brand: X-<Word>-Signature,
// -Timestamp, -Event and -Delivery for a single word (X-Service-*,
// X-Vault-*). The signature is "sha256=" + hex HMAC-SHA256 of
// "<timestamp>.<body>" keyed with the whole secret string; it is compared in
// constant time against every configured secret (current and previous
// during a rotation). During a rotation's grace the server also sends
// X-<Word>-Signature-Previous, the same signature made with the previous
// secret: a receiver that still holds only the previous secret verifies
// that one.
//
// A program that points a webhook at its receiver describes it with
// Description and deletes it when it stops; Abandoned recognises the ones
// a crashed run left behind (a loopback port nothing listens on).
package webhookrecv
