// Package model holds sandview's domain types and the JSON shapes of the
// sandbox service's wire interface: inboxes, emails, authentication results,
// server info, exported inboxes, stream events and webhooks.
//
// What sandview says about an email is decided here, once: its
// authentication verdict (AuthResults.Verdict and its Word), its Date header
// (Email.SentDate, DateText) apart from the server's ReceivedAt, its Cc
// (Email.Cc), an attachment's name (Attachment.Name), and how a raw message
// starts (StripMboxFrom).
//
// Nothing here does I/O. Decoding is liberal in what it accepts (see the
// deployed-servers notes): addresses may be a string or an array, header values
// may be strings or objects, unknown fields are ignored and optional fields may
// be missing.
package model
