package model

// Deletion notices: sandview's own channel of GET /api/events. A client
// that adds StreamNoticesParam=StreamNoticesValue to the query (only
// sandview's client does) also receives, for the inboxes it watches, one
// SSE message with the event name StreamNoticeEvent and a StreamNotice as
// its data whenever an email or an inbox is deleted (by any user, or its
// TTL). Without the parameter the stream is the interface's, unchanged:
// `data:` messages only, which the official clients read.
const (
	StreamNoticesParam = "sandview"
	StreamNoticesValue = "notices"
	StreamNoticeEvent  = "sandview.notice"
)

// The kinds of StreamNotice.
const (
	NoticeEmailDeleted = "email.deleted"
	NoticeInboxDeleted = "inbox.deleted"
)

// StreamNotice is the data of a sandview.notice message: Kind
// NoticeEmailDeleted (EmailID set) or NoticeInboxDeleted; Reason is a
// DeleteReason* value.
type StreamNotice struct {
	Kind         string `json:"kind"`
	InboxHash    string `json:"inboxHash"`
	EmailAddress string `json:"emailAddress"`
	EmailID      string `json:"emailId,omitempty"`
	Reason       string `json:"reason,omitempty"`
	// Chaos is set on a NoticeChaos.
	Chaos *ChaosAction `json:"chaos,omitempty"`
}
