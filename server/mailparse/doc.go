// Package mailparse turns a received RFC 5322 message into what the embedded
// sandbox server stores and serves: the envelope fields (From, To, Cc,
// Subject, Date, Message-ID), the text and HTML bodies converted to UTF-8,
// the header map, the attachments and inline parts with their decoded
// content, and the links found in the bodies.
//
// A well-formed message is read by a strict parser built on the standard
// library (fast: tens of microseconds for a typical mail); anything it
// rejects goes to enmime, which repairs what it can and reports the rest as
// Warnings. Both produce the same part tree, so bodies and attachments are
// chosen the same way whichever parser read the message.
//
// Parse never fails and never panics: a malformed message yields whatever
// could be read plus Warnings, and a message that cannot be parsed at all
// keeps its bytes as the text body. Malformed messages too costly to repair
// (thousands of parts, deeply nested unclosed multiparts) keep their body
// as text. The package does no I/O.
//
// Header map: names are lowercased; RFC 2047 encoded words in values are
// decoded; a header that occurs several times (Received, for instance) has
// its values joined with "\n" in the order they appear in the message.
package mailparse
