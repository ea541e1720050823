package search

import (
	"sync"

	"sandview/model"
)

// Index keeps, by inbox and ID, each email's folded text and what searching
// its body found, so the next key press folds nothing and scans little; it
// holds about 2.8 KB for an email with a 2 KB body. An email whose content
// has since been loaded (HasContent changed) is folded afresh; an email
// without an ID is never kept. Call Prepare to fold ahead of the first
// search and Forget for emails that are gone. An Index is safe for
// concurrent use.
type Index struct {
	mu   sync.Mutex
	docs map[docKey]*document
	// last holds the documents of the emails Filter last saw, by position:
	// searching the same list again finds them without hashing.
	last []slot
}

type docKey struct{ inbox, id string }

type slot struct {
	key docKey
	doc *document
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{docs: map[docKey]*document{}}
}

// Match reports whether e matches q.
func (x *Index) Match(q Query, e model.Email) bool {
	if q.IsEmpty() {
		return true
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return q.match(x.document(&e), &e)
}

// Filter returns the positions in emails of those that match q, in order;
// its length is the count to show.
func (x *Index) Filter(q Query, emails []model.Email) []int {
	var matches []int
	if q.IsEmpty() {
		matches = make([]int, len(emails))
		for i := range matches {
			matches[i] = i
		}
		return matches
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if cap(x.last) < len(emails) {
		x.last = make([]slot, len(emails))
	}
	x.last = x.last[:len(emails)]
	for i := range emails {
		e, last := &emails[i], &x.last[i]
		d := last.doc
		switch key := (docKey{e.InboxHash, e.ID}); {
		case e.ID == "":
			d = x.document(e)
		case d == nil || last.key != key || d.content != e.HasContent:
			d = x.document(e)
			*last = slot{key, d}
		}
		if q.match(d, e) {
			matches = append(matches, i)
		}
	}
	return matches
}

// Prepare folds the text of emails, and classifies their authentication
// results, ahead of any search, so the first key press does not pay for it.
// It takes the lock for one email at a time, so it can run in the
// background (on a copy of the list) while Filter serves key presses.
func (x *Index) Prepare(emails []model.Email) {
	for i := range emails {
		e := &emails[i]
		if e.ID == "" {
			continue
		}
		x.mu.Lock()
		d := x.document(e)
		for f := range fieldCount {
			if f.inMetadata() || e.HasContent {
				d.field(e, f)
			}
		}
		if e.HasContent {
			d.authWord(e)
		}
		x.mu.Unlock()
	}
}

// Forget drops what the index holds for e (deleted, or its inbox gone).
func (x *Index) Forget(e model.Email) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.docs, docKey{e.InboxHash, e.ID})
	clear(x.last)
}

func (x *Index) document(e *model.Email) *document {
	if e.ID == "" {
		return &document{content: e.HasContent}
	}
	key := docKey{e.InboxHash, e.ID}
	d := x.docs[key]
	if d == nil || d.content != e.HasContent {
		d = &document{content: e.HasContent}
		x.docs[key] = d
	}
	return d
}
