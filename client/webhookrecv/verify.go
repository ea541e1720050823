package webhookrecv

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"sandview/crypto"
)

// DefaultTolerance is the age beyond which a delivery's timestamp is stale.
const DefaultTolerance = 300 * time.Second

// SignatureStatus is the verdict on a delivery's signature.
type SignatureStatus int

// Verdicts, from best to worst.
const (
	// SignatureValid: signed by one of the secrets, timestamp fresh.
	SignatureValid SignatureStatus = iota
	// SignatureStale: signed by one of the secrets, but the timestamp is
	// missing, unreadable or further than the tolerance from now.
	SignatureStale
	// SignatureUnchecked: signed, but no secret is configured to check it.
	SignatureUnchecked
	// SignatureInvalid: signed, but by none of the secrets.
	SignatureInvalid
	// SignatureMissing: no X-<Word>-Signature header.
	SignatureMissing
)

// String is the verdict in one word.
func (s SignatureStatus) String() string {
	switch s {
	case SignatureValid:
		return "valid"
	case SignatureStale:
		return "stale"
	case SignatureUnchecked:
		return "unchecked"
	case SignatureInvalid:
		return "invalid"
	case SignatureMissing:
		return "missing"
	}
	return "unknown"
}

// MarshalText writes the verdict as its word (for JSON output).
func (s SignatureStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// brandHeaders are the delivery headers of one brand word.
type brandHeaders struct {
	signature                  []string
	timestamp, event, delivery string
}

// findBrand picks the X-<Word>-* headers of a delivery: those of the word
// that carries a signature, else of any word with delivery headers.
func findBrand(h http.Header) brandHeaders {
	words := map[string]*brandHeaders{}
	var order []string
	for name, values := range h {
		word, kind, ok := splitDeliveryHeader(name)
		if !ok || len(values) == 0 {
			continue
		}
		b, seen := words[word]
		if !seen {
			b = &brandHeaders{}
			words[word] = b
			order = append(order, word)
		}
		switch kind {
		case "signature", "signature-previous":
			// The previous secret's signature, during a rotation's
			// grace, is one more candidate.
			b.signature = append(b.signature, values...)
		case "timestamp":
			b.timestamp = values[0]
		case "event":
			b.event = values[0]
		case "delivery":
			b.delivery = values[0]
		}
	}
	var best *brandHeaders
	for _, w := range order {
		b := words[w]
		if best == nil || len(best.signature) == 0 && len(b.signature) > 0 {
			best = b
		}
	}
	if best == nil {
		return brandHeaders{}
	}
	return *best
}

// splitDeliveryHeader splits X-<Word>-<Kind> where Word is one run of
// letters or digits and Kind is Signature, Signature-Previous, Timestamp,
// Event or Delivery.
func splitDeliveryHeader(name string) (word, kind string, ok bool) {
	rest, found := strings.CutPrefix(http.CanonicalHeaderKey(name), "X-")
	if !found {
		return "", "", false
	}
	word, kind, found = strings.Cut(rest, "-")
	if !found || word == "" {
		return "", "", false
	}
	for _, r := range word {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "", "", false
		}
	}
	kind = strings.ToLower(kind)
	switch kind {
	case "signature", "signature-previous", "timestamp", "event", "delivery":
		return strings.ToLower(word), kind, true
	}
	return "", "", false
}

// Verify checks a delivery's signature against secrets (any may match) and
// its timestamp against tolerance at now (tolerance 0 turns the staleness
// check off). It returns the verdict, the event type, the delivery id and
// the timestamp's age (0 when there is none).
func Verify(headers http.Header, body []byte, secrets []string, tolerance time.Duration, now time.Time) (SignatureStatus, string, string, time.Duration) {
	b := findBrand(headers)
	var age time.Duration
	ts, tsErr := strconv.ParseInt(strings.TrimSpace(b.timestamp), 10, 64)
	if tsErr == nil {
		age = now.Sub(time.Unix(ts, 0))
	}
	status := verdict(b, body, secrets)
	if status == SignatureValid && tolerance > 0 {
		if tsErr != nil || age > tolerance || age < -tolerance {
			status = SignatureStale
		}
	}
	return status, b.event, b.delivery, age
}

func verdict(b brandHeaders, body []byte, secrets []string) SignatureStatus {
	if len(b.signature) == 0 {
		return SignatureMissing
	}
	usable := false
	for _, s := range secrets {
		usable = usable || s != ""
	}
	if !usable {
		return SignatureUnchecked
	}
	matched := false
	for _, sig := range b.signature {
		// Every value is checked; VerifyWebhookSignature compares in
		// constant time.
		if crypto.VerifyWebhookSignature(strings.TrimSpace(sig), b.timestamp, body, secrets...) {
			matched = true
		}
	}
	if matched {
		return SignatureValid
	}
	return SignatureInvalid
}
