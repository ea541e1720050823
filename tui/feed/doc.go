// Package feed is the live feed of sandview's terminal UI: what the client
// pushes (new mail, an inbox starting to deliver or gone from the server,
// connection states, background errors) becomes tea messages the program
// reads one at a time. The feed's Queue is the one queue live mail
// crosses between the client's watch engine and the program (the client
// calls the feed directly, Client.WatchAllDirect). It holds at most
// MaxQueuedEmails new emails: a push beyond that waits until the program
// takes the queued ones, which holds the client's delivery back instead of
// dropping mail. The other messages never wait: there are few of them
// (one per inbox event, state change or background error), and the client
// pushes some of them from calls the program itself makes.
package feed
