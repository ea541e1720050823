// Package servertest starts a real embedded sandbox server for tests of
// other packages, in one line: random loopback ports, API key "test-key",
// the test-email endpoint on, an in-process DNS resolver, and cleanup when
// the test ends. Its Client speaks the HTTP API, SMTP and the event stream
// to such a server and fails the test on any error, for the tests of the
// server's packages.
package servertest
