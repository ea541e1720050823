// Package watch is the client's watch engine: it keeps new mail
// flowing from the service to the subscribers of watched inboxes. It
// knows the client only through two interfaces, Client (the event stream
// and error reports) and Inbox (listing, fetching and polling one inbox),
// which package client implements; it never sees the client's HTTP code,
// registry or public types.
//
// The engine's parts: states (state.go) holds the connection state and
// its listeners; watchSet (watchset.go) the watched inboxes, their
// subscribers and seen ids, claims and fan-out; sync.go seeds and syncs
// inboxes and fetches new mail; streamer (stream.go) runs the event
// stream; poller (polling.go) polls under one request budget.
//
// Every subscription registers Callbacks on a watched inbox. One goroutine
// per engine keeps mail flowing for all watched inboxes in the
// Config.Mode:
//
//   - ModeStream: one event stream for all watched inboxes (stream.go). A
//     change of the watched set reconnects with the new list. After every
//     open, every inbox is synced (listed) to catch mail that arrived
//     while the stream was not open. A failed stream is reopened after
//     ReconnectInterval, doubling up to MaxReconnectDelay, less a random
//     ReconnectJitter share, MaxReconnectAttempts times; then the engine
//     polls. Reconnect cuts a wait short. An open the server refuses for
//     good (a 4xx but 408 and 429) is not retried: every watched inbox is
//     listed, those the server does not know are gone (below) and the
//     stream reopens at once for the others; when none is gone the engine
//     polls.
//   - ModeAuto: the same, but it also polls when the first open fails.
//   - ModePolling: one poller per watched inbox (polling.go), sharing a
//     request budget; a rate-limit refusal pauses them all.
//
// While polling instead of streaming (stream and auto), the stream is
// probed now and then; when a probe opens, polling stops and the stream
// takes over.
//
// No email is delivered twice: each watched inbox has a set of seen ids,
// seeded with the ids that exist when the inbox is first watched; an id is
// claimed in that set before its email is fetched and given back if the
// fetch fails for a transient reason (it is then fetched again by a later
// sync). Nothing is lost across reconnects, fallbacks and server
// restarts, because every (re)open and every poll lists the inbox.
//
// An inbox the server does not know (a listing or a poll answers that it
// is not found; MarkGone for what the client learns elsewhere) is gone:
// its watch ends at once, its subscribers hear Gone (or Ended), and the others
// keep flowing. Nothing about it is retried.
package watch
