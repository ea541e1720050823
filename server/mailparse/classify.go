package mailparse

// A message's parts are bodies or files. The rules follow enmime's
// envelope, with two changes: a part without a Content-Type is text/plain
// (RFC 2045) rather than an unnamed file, and a non-text part with an
// unusual disposition is kept as a file rather than dropped.

// isFile reports whether p is a file (an attachment or an inline part such
// as an embedded image) rather than a body.
func isFile(root, p *part) bool {
	if p.isMultipart() {
		return false
	}
	if p == root {
		// A single-part message is a file when marked as an attachment or
		// when it is not text.
		return p.disposition == dispositionAttachment || !isBodyType(p.contentType)
	}
	switch {
	case p.disposition == dispositionAttachment, !isBodyType(p.contentType):
		return true
	case p.disposition == dispositionInline:
		// Inline text is a body unless it is named like a file.
		return p.filename != "" || p.contentID != ""
	}
	return false
}

func isBodyType(contentType string) bool {
	return contentType == contentTypeText || contentType == contentTypeHTML
}

// isTextBody and isHTMLBody pick the body parts; an inline text part with a
// filename is both a body and a file.
func isTextBody(p *part) bool {
	return p.contentType == contentTypeText && p.disposition != dispositionAttachment && !p.isMultipart()
}

func isHTMLBody(p *part) bool {
	return p.contentType == contentTypeHTML && p.disposition != dispositionAttachment && !p.isMultipart()
}
