package desktop

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// browserCSP is the content security policy of an HTML body opened in the
// browser: nothing is loaded from anywhere (no tracking pixels, scripts,
// fonts or frames), images only from the page itself, inline styles kept
// so the mail looks as designed, and forms go nowhere.
const browserCSP = "default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'"

// BrowserPage is an HTML body made safe to open in a browser: the policy
// above as the first thing in its head, and what a policy does not stop
// removed (a refresh or a base address that would load a remote page,
// scripts).
func BrowserPage(body string) (string, error) {
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
	head.InsertBefore(meta(html.Attribute{Key: "http-equiv", Val: "Content-Security-Policy"}, html.Attribute{Key: "content", Val: browserCSP}), head.FirstChild)
	var b strings.Builder
	if err := html.Render(&b, doc); err != nil {
		return "", fmt.Errorf("write the HTML body: %w", err)
	}
	return b.String(), nil
}

// unsafeInBrowser reports an element the page loses: scripts, base
// addresses, and meta tags that refresh, redirect or set a policy of
// their own.
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
	}
	return false
}

// TempDir is a private directory (0700) for the files a long-running
// program opens with other programs (0600): made on first use, removed
// with its files by Remove. The zero value is ready to use.
type TempDir struct {
	mu   sync.Mutex
	path string
}

// Write saves data under the safe form of name, never overwriting, and
// returns its path.
func (d *TempDir) Write(name string, data []byte) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" {
		dir, err := os.MkdirTemp("", "sandview-")
		if err != nil {
			return "", fmt.Errorf("make a temporary directory: %w", err)
		}
		d.path = dir
	}
	return SaveUnique(d.path, name, "file", data, 0o600)
}

// Remove deletes the directory and its files.
func (d *TempDir) Remove() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" {
		return nil
	}
	err := os.RemoveAll(d.path)
	d.path = ""
	if err != nil {
		return fmt.Errorf("remove the temporary files: %w", err)
	}
	return nil
}
