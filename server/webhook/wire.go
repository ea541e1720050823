package webhook

import "net/http"

// wire is what a wire profile changes in the routes' answers and in the
// deliveries: the interface as written, or the reference deployment's
// behaviour (Config.ReferenceWire).
type wire struct {
	// actionStatus answers a successful test or rotate-secret.
	actionStatus int
	// invalidStatus answers a filter regex or template that does not
	// compile (other bad requests are 400 in both).
	invalidStatus int
	// fullViews makes create and update answer with the secret and stats,
	// as get does.
	fullViews bool
	// idempotentDelete answers 204 instead of 404 to deleting a webhook
	// that does not exist, or one of an inbox that does not exist.
	idempotentDelete bool
	// headerWord is the word in the delivery headers X-<word>-Signature,
	// -Event, -Delivery and -Timestamp.
	headerWord string
	// userAgent is the deliveries' User-Agent.
	userAgent string
	// messageIDPrefix starts data.id, the email id, in event payloads.
	messageIDPrefix string
}

// wire is the profile cfg selects.
func (cfg Config) wire() wire {
	if cfg.ReferenceWire {
		return wire{
			actionStatus:     http.StatusCreated,
			invalidStatus:    http.StatusBadRequest,
			fullViews:        true,
			idempotentDelete: true,
			headerWord:       "Vault",
			userAgent:        "VaultSandbox-Webhook/1.0",
			messageIDPrefix:  "",
		}
	}
	return wire{
		actionStatus:     http.StatusOK,
		invalidStatus:    http.StatusUnprocessableEntity,
		fullViews:        false,
		idempotentDelete: false,
		headerWord:       "Service",
		userAgent:        "Service-Webhook/1.0",
		messageIDPrefix:  "msg_",
	}
}

// header is the delivery header X-<word>-<name>.
func (w wire) header(name string) string { return "X-" + w.headerWord + "-" + name }
