package core

// links are an email's neighbours in one emailList.
type links struct{ prev, next *liveEmail }

// emailList is a list of accounted emails, oldest first, linked through
// the emails themselves (their all or own links): a stored email costs the
// registry one object, not one per list it is in.
type emailList struct {
	front, back *liveEmail
	n           int
	// own selects the emails' own links (an inbox's list) over their all
	// links (the registry's list of every email).
	own bool
}

func (l *emailList) links(e *liveEmail) *links {
	if l.own {
		return &e.own
	}
	return &e.all
}

// len is the number of emails in the list.
func (l *emailList) len() int { return l.n }

// pushBack appends e, the newest email.
func (l *emailList) pushBack(e *liveEmail) {
	*l.links(e) = links{prev: l.back}
	if l.back != nil {
		l.links(l.back).next = e
	} else {
		l.front = e
	}
	l.back = e
	l.n++
}

// remove unlinks e, which is in the list.
func (l *emailList) remove(e *liveEmail) {
	at := l.links(e)
	if at.prev != nil {
		l.links(at.prev).next = at.next
	} else {
		l.front = at.next
	}
	if at.next != nil {
		l.links(at.next).prev = at.prev
	} else {
		l.back = at.prev
	}
	*at = links{}
	l.n--
}
