// Package reader is the message reader of sandview's mail screen: the
// pane that shows the open email, its summary, its tabs (Body, Headers,
// Links, Attachments, Raw, Auth, Checks, Rendered) laid out once per
// email and width, the search inside the message (search.go), the link
// check (linkcheck.go), the pipe to a shell command (pipe.go) and the
// rendered picture (rendered.go, picture.go).
//
// The reader shows what its Host holds and asks the Host for what is
// done outside the pane (fetching the raw source, copying, opening and
// saving); the keys it leaves unhandled are the screen's (marking,
// deleting, the inbox's keys). It bounds what it keeps of a hostile
// email (bounds.go).
package reader
