package cli

import (
	"runtime/debug"

	"sandview/model"
)

// collectLessOften makes the garbage collector of a process that runs
// one command line run less often, until the returned function is
// called: a long list allocates many times what it holds at once
// (records, opened mail, its JSON), and collecting at 800% instead of
// 100% costs some MB and saves about a fifth of the CPU. A GOGC of the
// user's own wins, and a server running the command for an SSH session
// keeps its setting (it is the whole process's).
func collectLessOften(env environment) (restore func()) {
	if !env.process {
		return func() {}
	}
	if _, set := env.lookup("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(800)
	return func() { debug.SetGCPercent(old) }
}

// preparedEmail is an email of a list made ready to print on the list's
// workers (client.EachEmailAs): for JSON its encoded text, so that
// encoding a long list is spread over the cores like opening it.
type preparedEmail struct {
	email   model.Email // for a table
	json    string      // the element, for JSON
	jsonErr error
	openErr error
}

// prepare makes an email ready for write; it is safe for concurrent use.
func (l *emailList) prepare(e model.Email, openErr error) preparedEmail {
	if l.json == nil {
		return preparedEmail{email: e, openErr: openErr}
	}
	text, err := l.json.encode(emailViewOf(e))
	return preparedEmail{json: text, jsonErr: err, openErr: openErr}
}

// write prints a prepared email: add's output for the same email.
func (l *emailList) write(p preparedEmail) error {
	if l.json == nil {
		return l.add(p.email)
	}
	if p.jsonErr != nil {
		return p.jsonErr
	}
	return l.json.addEncoded(p.json)
}
