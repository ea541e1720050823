package email

import (
	"sandview/model"
)

// preparedEmail is an email of a list made ready to print on the list's
// workers (client.EachEmailAs): for JSON its encoded text, so that
// encoding a long list is spread over the cores like opening it.
type preparedEmail struct {
	email   model.Email // for a cmdutil.Table
	json    string      // the element, for JSON
	jsonErr error
	openErr error
}

// prepare makes an email ready for write; it is safe for concurrent use.
func (l *emailList) prepare(e model.Email, openErr error) preparedEmail {
	if l.json == nil {
		return preparedEmail{email: e, openErr: openErr}
	}
	text, err := l.json.Encode(ViewOf(e))
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
	return l.json.AddEncoded(p.json)
}
