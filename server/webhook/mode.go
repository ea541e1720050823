package webhook

import (
	"context"

	"sandview/server/store"
)

// mode is where an engine keeps its webhooks and how their deliveries run,
// chosen once by New: localMode (the engine's own file, or memory only;
// deliveries start at once and retries wait on timers) or sharedMode (a
// store the engines of several replicas share, with a delivery queue every
// replica claims from).
type mode interface {
	// load fills the engine's webhooks at start and starts the mode's own
	// work; on error the mode has released what it opened.
	load() error
	// reload refreshes the cached webhooks from where other replicas write
	// them (nothing to do locally).
	reload(ctx context.Context) error
	// saveHook writes a webhook's record; deleteHook removes it and its
	// pending deliveries.
	saveHook(rec record) error
	deleteHook(id string) error
	// forgetHooks removes the records of a deleted inbox's webhooks (a
	// shared store dropped them with the inbox).
	forgetHooks(ids []string)
	// prepare renders events' deliveries into an email's commit (shared
	// mode; see Engine.Prepare).
	prepare(batch *store.Batch, events []Incoming) error
	// deliver starts or queues an event's rendered deliveries.
	deliver(ds []*delivery) error
	// wake makes the mode look for due deliveries now.
	wake()
	// suspend keeps an unfinished delivery for later (shutdown); discard
	// drops one whose webhook is gone or disabled.
	suspend(d *delivery)
	discard(d *delivery)
	// record records an attempt's outcome: stats, the next attempt or the
	// delivery's end, disabling the webhook after too many failures.
	record(h *hook, d *delivery, ok bool)
	// halt stops starting deliveries (Close, before in-flight attempts
	// are awaited); close then keeps what the next start needs and
	// releases the mode.
	halt()
	close() error
}
