package desktop

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// browserCSP is the content security policy of an HTML body opened in the
// browser: nothing is loaded from anywhere (no tracking pixels, scripts,
// fonts or frames), images only from the page itself, inline styles kept
// so the mail looks as designed, and forms go nowhere.
const browserCSP = "default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'"

// remoteCSP is browserCSP with remote images, style sheets and fonts
// allowed (a render the user allowed remote content for; what fetches them
// is the renderer's business): still no scripts, frames or forms.
const remoteCSP = "default-src 'none'; img-src data: cid: http: https:; style-src 'unsafe-inline' http: https:; font-src data: http: https:; form-action 'none'; base-uri 'none'"

// BrowserPage is an HTML body made safe to open in a browser: the policy
// above as the first thing in its head, DNS prefetching of its links
// turned off, and what a policy does not stop removed (a refresh or a base
// address that would load a remote page, scripts, resource hints that
// reach out to a host before anything is clicked).
func BrowserPage(body string) (string, error) { return page(body, browserCSP) }

// RemotePage is BrowserPage with remote images, style sheets and fonts
// allowed by its policy; everything else BrowserPage removes is removed.
func RemotePage(body string) (string, error) { return page(body, remoteCSP) }

// PolicyMeta is BrowserPage's policy (RemotePage's with remote) as a
// meta tag, for a page that cannot be parsed to be cleaned (a renderer
// that runs no script and loads nothing itself puts it first).
func PolicyMeta(remote bool) string {
	csp := browserCSP
	if remote {
		csp = remoteCSP
	}
	return `<meta http-equiv="Content-Security-Policy" content="` + csp + `">`
}

// page is body made safe with the content security policy csp.
func page(body, csp string) (string, error) {
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("read the HTML body: %w", err)
	}
	var head *html.Node
	var strip func(n *html.Node)
	strip = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && unsafeInBrowser(c) {
				n.RemoveChild(c)
			} else {
				if c.DataAtom == atom.Head && head == nil {
					head = c
				}
				strip(c)
			}
			c = next
		}
	}
	strip(doc)
	if head == nil {
		return "", errors.New("read the HTML body: no head") // html.Parse always makes one
	}
	meta := func(attrs ...html.Attribute) *html.Node {
		return &html.Node{Type: html.ElementNode, Data: "meta", DataAtom: atom.Meta, Attr: attrs}
	}
	head.InsertBefore(meta(html.Attribute{Key: "charset", Val: "utf-8"}), head.FirstChild)
	head.InsertBefore(meta(html.Attribute{Key: "http-equiv", Val: "x-dns-prefetch-control"}, html.Attribute{Key: "content", Val: "off"}), head.FirstChild)
	head.InsertBefore(meta(html.Attribute{Key: "http-equiv", Val: "Content-Security-Policy"}, html.Attribute{Key: "content", Val: csp}), head.FirstChild)
	var b strings.Builder
	if err := html.Render(&b, doc); err != nil {
		return "", fmt.Errorf("write the HTML body: %w", err)
	}
	return b.String(), nil
}

// unsafeInBrowser reports an element the page loses: scripts, base
// addresses, meta tags that refresh, redirect or set a policy of their
// own, and links that are resource hints.
func unsafeInBrowser(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Noscript, atom.Base:
		return true
	case atom.Meta:
		for _, a := range n.Attr {
			if strings.EqualFold(a.Key, "http-equiv") {
				return true
			}
		}
	case atom.Link:
		for _, a := range n.Attr {
			if strings.EqualFold(a.Key, "rel") && isResourceHint(a.Val) {
				return true
			}
		}
	}
	return false
}

// resourceHints are the link relations that make a browser resolve,
// connect to or fetch from a host before anything is clicked (a content
// security policy does not stop every one of them: dns-prefetch is not
// fetched content).
var resourceHints = []string{"dns-prefetch", "preconnect", "prefetch", "prerender", "preload", "modulepreload"}

// isResourceHint reports whether a rel value (a space-separated list of
// relations, any case) holds a resource hint.
func isResourceHint(rel string) bool {
	for _, r := range strings.Fields(rel) {
		for _, hint := range resourceHints {
			if strings.EqualFold(r, hint) {
				return true
			}
		}
	}
	return false
}
