package mailparse

import (
	"net/textproto"
	"strings"

	"github.com/jhillyerd/enmime"
)

const (
	contentTypeText   = "text/plain"
	contentTypeHTML   = "text/html"
	contentTypeBinary = "application/octet-stream"
)

// part is one node of a message's MIME tree with its content still
// transfer-encoded. Both parsers (the strict fast one and enmime) produce
// it, so everything downstream behaves the same whichever read the message.
type part struct {
	id          string
	header      textproto.MIMEHeader
	contentType string // lowercase media type; text/plain when absent
	charset     string
	boundary    string
	disposition string // lowercase; "" when absent
	filename    string // decoded
	contentID   string // without the angle brackets
	content     []byte // nil for a multipart node
	children    []*part
}

// isMultipart reports whether the part was split into children.
func (p *part) isMultipart() bool {
	return strings.HasPrefix(p.contentType, "multipart/") && p.boundary != ""
}

// walk visits the tree depth-first in message order.
func (p *part) walk(visit func(*part)) {
	visit(p)
	for _, c := range p.children {
		c.walk(visit)
	}
}

// depthFirst returns the first part, in message order, that matches.
func (p *part) depthFirst(match func(*part) bool) *part {
	if match(p) {
		return p
	}
	for _, c := range p.children {
		if found := c.depthFirst(match); found != nil {
			return found
		}
	}
	return nil
}

// breadthFirst returns the first part, breadth-first, that matches.
func (p *part) breadthFirst(match func(*part) bool) *part {
	queue := []*part{p}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		if match(next) {
			return next
		}
		queue = append(queue, next.children...)
	}
	return nil
}

// contentIDFrom strips the angle brackets and spaces of a Content-ID value.
func contentIDFrom(value string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(value), "<>"))
}

// fromEnmime converts a part tree read by enmime with raw content.
func fromEnmime(ep *enmime.Part) *part {
	p := &part{
		id:          ep.PartID,
		header:      ep.Header,
		contentType: strings.ToLower(ep.ContentType),
		charset:     ep.Charset,
		boundary:    ep.Boundary,
		disposition: strings.ToLower(ep.Disposition),
		filename:    validUTF8String(strings.TrimSpace(ep.FileName)),
		contentID:   contentIDFrom(ep.Header.Get("Content-Id")),
		content:     ep.Content,
	}
	if p.contentType == "" {
		p.contentType = contentTypeText
	}
	for c := ep.FirstChild; c != nil; c = c.NextSibling {
		p.children = append(p.children, fromEnmime(c))
	}
	return p
}
