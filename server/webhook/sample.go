package webhook

import (
	"time"

	"sandview/model"
)

// sampleTime is the fixed time of the sample event used for validation.
func sampleTime() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) }

// sampleIncoming is the event used to check custom templates and sent by
// the test operation, of type eventType.
func sampleIncoming(eventType string, at time.Time) Incoming {
	ev := Incoming{
		Type:       eventType,
		At:         at,
		InboxEmail: "test-inbox@sandbox.test",
		InboxHash:  "sample-inbox-hash",
		EmailID:    "test",
		Reason:     model.DeleteReasonManual,
	}
	if eventType == model.EventEmailReceived {
		text := "This is a test delivery of your webhook. It carries sample data, not a real email."
		ev.Received = &model.EmailReceivedData{
			ID:         "msg_test",
			InboxID:    ev.InboxHash,
			InboxEmail: ev.InboxEmail,
			From:       model.EventAddress{Address: "sender@example.com", Name: "Test Sender"},
			To:         []model.EventAddress{{Address: ev.InboxEmail}},
			Subject:    "Test webhook delivery",
			Snippet:    text,
			TextBody:   text,
			HTMLBody:   "<p>" + text + "</p>",
			Headers: map[string]string{
				"from":    "Test Sender <sender@example.com>",
				"to":      ev.InboxEmail,
				"subject": "Test webhook delivery",
			},
			Attachments: []model.EventAttachment{{Filename: "sample.txt", ContentType: "text/plain", Size: 42}},
			Auth:        &model.EventAuth{SPF: model.ResultPass, DKIM: model.ResultPass, DMARC: model.ResultPass},
			ReceivedAt:  isoTime(at),
		}
	}
	return ev
}
