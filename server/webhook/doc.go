// Package webhook is the embedded server's webhook system: the global and
// inbox-scoped webhook routes of the HTTP interface, and the delivery engine
// that turns email events into signed HTTP deliveries.
//
// The server feeds events in with Engine.Handle; the engine filters them per
// webhook, renders each webhook's template, and delivers with the contract's
// retry schedule, concurrency caps and automatic disabling. It keeps
// nothing itself: webhooks, their stats and the queue of deliveries
// waiting for an attempt live in the server's store (Config.Store: memory,
// the data directory's bbolt file or PostgreSQL, which the engines of
// several replicas share), and the engine claims due deliveries from it
// (see queue.go). It works the same on every store.
//
// Config.ReferenceWire switches the routes and deliveries from the
// interface as written to the reference deployment's behaviour where the two
// differ (see wire): status codes of test, rotate-secret, invalid templates
// and filters and deletes of unknown webhooks; secret and stats in create
// and update answers; the X-Vault-* delivery headers and User-Agent; data.id
// without the msg_ prefix. Signing is the same in both: HMAC-SHA256 over
// "<timestamp>.<body>" keyed with the whole secret string, whsec_ included.
//
// Decisions where the contract is silent:
//
//   - A delivery is one event sent to one webhook, with all of its attempts.
//     It fails when its last attempt fails (or when its retry cannot be
//     queued). Five consecutive failed deliveries disable the webhook. Stats
//     count deliveries (final outcomes); lastDeliveryAt and
//     lastDeliveryStatus describe the latest attempt.
//   - Every attempt of a delivery keeps the event id, the delivery id and the
//     body rendered for the first attempt; it gets a fresh timestamp and
//     signature. Retries go to the webhook's current URL and are signed with
//     its current secret; a retry that comes due while the webhook is disabled
//     or deleted is dropped.
//   - At most Config.MaxQueuedRetriesPerWebhook retries wait per webhook. A
//     failed attempt that would exceed the bound is not queued: that
//     delivery ends as failed at once (the newest is dropped, the queue of
//     older retries keeps its order).
//   - After rotate-secret the new secret signs every delivery
//     (X-<Word>-Signature); for one hour the previous secret stays valid for
//     verification (Engine.VerifySignature) and also signs each delivery in
//     a second header, X-<Word>-Signature-Previous (same timestamp and
//     body), so a receiver not yet given the new secret keeps verifying.
//   - Webhook URLs obey client/netguard's destination rule unless
//     AllowPrivate: a host that is or resolves to a loopback, private,
//     link-local, unspecified, shared or metadata address is refused at
//     create and update (400), and the engine's dialer refuses connections
//     to such addresses (DNS rebinding). Failed attempts report "delivery
//     failed" with the HTTP status, never connection details.
//   - Filters judge email.received by its content. email.stored and
//     email.deleted carry no content: they pass a content-dependent filter
//     when the same webhook's filter passed that email's email.received (the
//     verdict is remembered per email, for the latest 10,000 emails). When the
//     verdict is unknown (the email arrived before the webhook existed, or
//     before a restart) they do not fire. A filter with no rules and without
//     requireAuth passes everything.
//   - An empty rule list passes in both modes. A field that is absent (no
//     recipient, no such header, empty body) compares as "" and does not
//     "exist". Header rules see every header in full, before the payload's
//     MaxHeaders/MaxHeaderValueLen limits. The domain operator ignores
//     caseSensitive. requireAuth passes when the email's authentication verdict
//     (model.Checks.Verdict, the one verdict) is pass.
//   - The payload keeps the first MaxHeaders headers in name order, each
//     value cut to MaxHeaderValueLen characters.
//   - A custom template is JSON text; a {{path}} placeholder may sit inside a
//     string (replaced by the value's text, JSON-escaped) or stand alone as a
//     value (replaced by the JSON value). A string that is exactly one
//     placeholder becomes the raw JSON value (numbers stay numbers, objects
//     stay objects). A path that resolves to nothing gives "" inside a
//     string and null as a whole value. Substituted text is never scanned
//     again, so "{{x}}" inside mail stays literal. Key order is kept.
//   - The test operation sends a sample event of the webhook's first event
//     type, rendered with its template and signed with its secret, even when
//     the webhook is disabled. It does not count in stats, the failure
//     streak, or the concurrency caps. Its answer says only whether the
//     event was delivered, with the endpoint's status when it answered:
//     never its body, nor why a connection failed.
//   - Redirects are not followed: a 3xx answer is a failed attempt.
//   - Handle never blocks: events beyond a queue of 4,096 waiting events are
//     dropped and logged.
//   - Routes are scoped: a global route does not see inbox webhooks and an
//     inbox route sees only that inbox's. Deleting an unknown webhook
//     answers 404 (the contract's error table; 204 under the reference
//     wire). Lists are oldest first, in
//     creation order: webhooks and deliveries take a number from one
//     increasing sequence that is stored with them, so neither the clock's
//     resolution nor a restart can reorder them. Repeated event names are
//     dropped. A request property the contract does not name, at any
//     depth (template and filter objects included), answers 400 naming it;
//     an empty request body is the empty object (httpapi.DecodeBody), so an
//     empty update changes nothing.
//     A filter's requireAuth is resolved against the server default at
//     create/update time and shown in responses. Update answers without
//     secret and stats, like lists; create answers with the secret (under
//     the reference wire both answer with secret and stats, like get).
//   - Every delivery is its own goroutine waiting for a slot of its webhook
//     (10), then a slot overall (100); a webhook's waiting deliveries never
//     hold overall slots.
//   - Create, update, rotate and delete are written to the store before they
//     are answered; delivery stats with each attempt's outcome. A delivery
//     is queued before its first attempt (a new email's in the email's own
//     commit), so one not finished when the server stops is made after the
//     next start (on a durable store).
package webhook
