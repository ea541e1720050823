package webhook

import "time"

// pending is a delivery as the store queues it (in its Pending field).
type pending struct {
	WebhookID   string    `json:"webhookId"`
	EventID     string    `json:"eventId"`
	DeliveryID  string    `json:"deliveryId"`
	EventType   string    `json:"eventType"`
	Body        []byte    `json:"body"`
	ContentType string    `json:"contentType"`
	Attempt     int       `json:"attempt"` // number of the next attempt, from 1
	Due         time.Time `json:"due"`
	Seq         uint64    `json:"seq"` // queue order, numbered by the store
}

// delivery is one event on its way to one webhook.
type delivery struct{ pending }

func statusText(ok bool) string {
	if ok {
		return "success"
	}
	return "failed"
}
