package client

import (
	"net/url"
	"strings"
)

// Routes of the API and how a 404 on each is read.

// notFoundFunc turns a 404 into the error class of its route; nil keeps
// the *APIError.
type notFoundFunc func(status *APIError) error

// Path helpers: every address and id is escaped as one path segment.

func inboxPath(address string) string {
	return "/api/inboxes/" + url.PathEscape(address)
}

func emailPath(address, id string) string {
	return inboxPath(address) + "/emails/" + url.PathEscape(id)
}

// mentionsInbox reports whether a 404 message is about the inbox (as
// opposed to the email or webhook named in the path).
func mentionsInbox(status *APIError) bool {
	return strings.Contains(strings.ToLower(status.Message), "inbox")
}

// inboxNotFound maps a 404 to InboxNotFoundError for address.
func inboxNotFound(address string) notFoundFunc {
	return func(status *APIError) error {
		return &InboxNotFoundError{Address: address, status: status}
	}
}

// emailNotFound maps a 404 to EmailNotFoundError for id, or to
// InboxNotFoundError when the server says the inbox is missing.
func emailNotFound(address, id string) notFoundFunc {
	return func(status *APIError) error {
		if mentionsInbox(status) {
			return &InboxNotFoundError{Address: address, status: status}
		}
		return &EmailNotFoundError{ID: id, status: status}
	}
}
