package mailparse

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/encoding/htmlindex"
)

const (
	// textSeparator joins the text parts of a multipart/mixed message.
	textSeparator = "\n--\n"
	// metaCharsetWindow is how much of an HTML body is searched for a
	// <meta> charset when the part declares none.
	metaCharsetWindow = 1024
)

// fillBodies sets the text and HTML bodies, decoded and converted to UTF-8
// from their declared charsets. The text body is, for multipart/alternative,
// the first text part breadth-first, and otherwise every text part in order
// but the blank ones (whitespace only); a blank text body is ""; the HTML
// body is the first HTML part; a single-part message that is not a file is
// its own body.
func (m *Message) fillBodies(root *part) {
	if !root.isMultipart() {
		if isFile(root, root) {
			return
		}
		if body := m.decodeText(root); root.contentType == contentTypeHTML {
			m.Content.HTML = body
		} else {
			m.Content.Text = body
		}
		return
	}
	if root.contentType == "multipart/alternative" {
		if p := root.breadthFirst(isTextBody); p != nil {
			m.Content.Text = m.decodeText(p)
		}
	} else {
		var texts []string
		root.walk(func(p *part) {
			if isTextBody(p) {
				texts = append(texts, m.decodeText(p))
			}
		})
		texts = slices.DeleteFunc(texts, isBlank)
		m.Content.Text = strings.Join(texts, textSeparator)
	}
	if isBlank(m.Content.Text) {
		m.Content.Text = "" // clients show the HTML when there is no text
	}
	if p := root.depthFirst(isHTMLBody); p != nil {
		m.Content.HTML = m.decodeText(p)
	}
}

// decodeText returns a text part's content as UTF-8.
func (m *Message) decodeText(p *part) string {
	content, _ := m.decodeTransfer(p)
	charset := p.charset
	if charset == "" && p.contentType == contentTypeHTML {
		charset = htmlMetaCharset(content)
	}
	return m.toUTF8(content, charset)
}

// toUTF8 converts text in the named charset to UTF-8. UTF-8, ASCII and
// undeclared text is kept when valid and otherwise read as ISO-8859-1; an
// unknown charset is treated the same way, with a warning.
func (m *Message) toUTF8(content []byte, charset string) string {
	charset = strings.ToLower(strings.Trim(strings.TrimSpace(charset), `"'`))
	switch charset {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return validUTF8(content)
	}
	enc, err := htmlindex.Get(charset)
	if err != nil {
		m.warn(fmt.Sprintf("unknown charset %q; text kept as UTF-8 or ISO-8859-1", charset))
		return validUTF8(content)
	}
	converted, err := enc.NewDecoder().Bytes(content)
	if err != nil {
		m.warn(fmt.Sprintf("charset %q conversion failed: %v", charset, err))
		return validUTF8(content)
	}
	return validUTF8(converted)
}

// htmlMetaCharset finds the charset an HTML body declares in a <meta> tag
// near its start, or "".
func htmlMetaCharset(html []byte) string {
	window := html[:min(len(html), metaCharsetWindow)]
	lower := bytes.ToLower(window)
	at := bytes.Index(lower, []byte("charset="))
	if at < 0 || !bytes.Contains(lower[:at], []byte("<meta")) {
		return ""
	}
	value := bytes.TrimLeft(window[at+len("charset="):], `"' `)
	end := bytes.IndexFunc(value, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':')
	})
	if end < 0 {
		end = len(value)
	}
	return string(value[:end])
}

// isBlank reports a text that is empty or whitespace only.
func isBlank(text string) bool { return strings.TrimSpace(text) == "" }
