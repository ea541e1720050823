// Package mailparse turns a received RFC 5322 message into what the embedded
// sandbox server stores and serves: the envelope fields (From, To, Cc,
// Subject, Date, Message-ID), the text and HTML bodies converted to UTF-8,
// the header map, the attachments and inline parts with their decoded
// content, and the links found in the bodies.
//
// Parse never fails and never panics: a malformed message yields whatever
// could be read plus Warnings, and a message that cannot be parsed at all
// keeps its bytes as the text body. The package does no I/O.
//
// Header map: names are lowercased; RFC 2047 encoded words in values are
// decoded; a header that occurs several times (Received, for instance) has
// its values joined with "\n" in the order they appear in the message.
package mailparse
