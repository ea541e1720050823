package htmlrender

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"sandview/tui/desktop"
)

// cidRef is a cid: reference in the HTML as html.Render writes it: in a
// quoted attribute (src="cid:logo") or in CSS (url(cid:logo)).
var cidRef = regexp.MustCompile(`(?i)cid:([^"'()\s<>]+)`)

// safePage is the HTML the browser gets: the part made safe as `email
// open` makes it (desktop.BrowserPage: a content security policy that
// loads nothing remote, scripts, refreshes and resource hints removed;
// with remote content allowed, desktop.RemotePage), and its cid:
// references to inline parts turned into data: URLs (the only images the
// policy allows besides remote ones). A reference to no part is left as
// it is: a broken image, as the recipient would see it.
//
// A part over maxHTMLBytes is cut there (as Gmail clips long mail), and
// one nested too deep for the HTML parser gets only the policy, first:
// note says so. The browser runs no script and loads nothing itself
// either way.
func safePage(in Input, allowRemote bool) (html, note string, err error) {
	body := in.HTML
	if len(body) > maxHTMLBytes {
		note = fmt.Sprintf("the HTML part is %d bytes: its first %d rendered", len(body), maxHTMLBytes)
		body = body[:maxHTMLBytes]
	}
	safe := desktop.BrowserPage
	if allowRemote {
		safe = desktop.RemotePage
	}
	p, err := safe(body)
	if err != nil {
		p = desktop.PolicyMeta(allowRemote) + body
		note = join(note, "the HTML could not be cleaned ("+err.Error()+"): rendered behind the policy alone")
	}
	if len(in.Inline) == 0 {
		return p, note, nil
	}
	return cidRef.ReplaceAllStringFunc(p, func(ref string) string {
		part, ok := inlinePart(in.Inline, ref[len("cid:"):])
		if !ok {
			return ref
		}
		return "data:" + mediaType(part.ContentType) + ";base64," + base64.StdEncoding.EncodeToString(part.Content)
	}), note, nil
}

// join joins two notes.
func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// inlinePart finds the part a cid: reference names: as written, or
// %-decoded (RFC 2392), or with the &amp; html.Render wrote decoded.
func inlinePart(parts map[string]Part, id string) (Part, bool) {
	id = strings.ReplaceAll(id, "&amp;", "&")
	if p, ok := parts[id]; ok {
		return p, true
	}
	if dec, err := url.PathUnescape(id); err == nil {
		p, ok := parts[dec]
		return p, ok
	}
	return Part{}, false
}

// contentID is a Content-ID header's value without its angle brackets.
func contentID(v string) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "<"), ">"))
}

// mediaType is a part's content type fit for a data: URL (its media type
// alone, when it is a plain type/subtype), else a neutral one the browser
// sniffs.
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	typ, sub, ok := strings.Cut(t, "/")
	if !ok || !token(typ) || !token(sub) {
		return "application/octet-stream"
	}
	return t
}

// token reports whether s is a non-empty run of the characters a media
// type's names are made of.
func token(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("+-.", r)) {
			return false
		}
	}
	return true
}
