// Package model holds sandview's domain types and the JSON shapes of the
// sandbox service's wire interface: inboxes, emails, authentication results,
// server info, exported inboxes, stream events and webhooks.
//
// Nothing here does I/O. Decoding is liberal in what it accepts (see the
// deployed-servers notes): addresses may be a string or an array, header values
// may be strings or objects, unknown fields are ignored and optional fields may
// be missing.
package model
