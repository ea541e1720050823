// Package tuitest holds what the tests of sandview's terminal UI share:
// fixed fixtures (inboxes, hostile and problem emails, webhooks,
// deliveries), a fake service that records its calls and pushes live mail
// through the same feed interface as the client, a fixed ui.Context, key
// builders, a driver that runs a model's commands to completion, and the
// golden check that a view is exactly its size.
package tuitest
