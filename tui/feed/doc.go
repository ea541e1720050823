// Package feed is the live feed of sandview's terminal UI: what the client
// pushes (new mail, an inbox starting to deliver or gone from the server,
// connection states, background errors) becomes tea messages the program
// reads one at a time. The pushing side only enqueues, so a client
// callback never waits for the UI and never does I/O itself.
package feed
