package desktop

import (
	"html"
	"strings"
	"testing"
)

// TestBrowserPageDropsResourceHints: links that make the browser resolve,
// connect to or fetch from a host before anything is clicked are removed
// wherever they are and however their rel is written; DNS prefetching is
// off and a mail cannot turn it back on; other links stay.
func TestBrowserPageDropsResourceHints(t *testing.T) {
	hints := []string{
		`<link rel="dns-prefetch" href="//a.tracker.example">`,
		`<link rel="preconnect" href="https://b.tracker.example">`,
		`<link rel="prefetch" href="https://c.tracker.example/x">`,
		`<link rel="prerender" href="https://d.tracker.example/">`,
		`<link rel="preload" href="https://e.tracker.example/f.woff" as="font">`,
		`<link rel="modulepreload" href="https://f.tracker.example/m.js">`,
		`<link REL="DNS-Prefetch" href="//g.tracker.example">`,
		`<link rel="stylesheet  preconnect" href="https://h.tracker.example">`,
	}
	body := `<html><head>` + strings.Join(hints[:4], "") + `<meta http-equiv="x-dns-prefetch-control" content="on">` +
		`<link rel="icon" href="data:,"></head><body><p>hi</p>` + strings.Join(hints[4:], "") + `<a href="https://i.example/">link</a></body></html>`
	page, err := BrowserPage(body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page, "tracker.example") {
		t.Fatalf("a resource hint survived:\n%s", page)
	}
	if !strings.Contains(page, `<meta http-equiv="x-dns-prefetch-control" content="off"/>`) || strings.Contains(page, `content="on"`) {
		t.Fatalf("DNS prefetching is not off:\n%s", page)
	}
	for _, kept := range []string{`<link rel="icon" href="data:,"/>`, `<a href="https://i.example/">link</a>`, `<p>hi</p>`} {
		if !strings.Contains(page, kept) {
			t.Fatalf("%s was lost:\n%s", kept, page)
		}
	}
}

// TestRemotePageAllowsOnlyRemoteImagesStylesFonts: RemotePage's policy
// lets remote images, style sheets and fonts load (nothing else: no
// script, frame or form), and the page still loses its scripts and
// refreshes; PolicyMeta is the same policy as a meta tag.
func TestRemotePageAllowsOnlyRemoteImagesStylesFonts(t *testing.T) {
	page, err := RemotePage(`<meta http-equiv="refresh" content="0; url=https://x.example/"><script>alert(1)</script><img src="https://i.example/a.png">`)
	if err != nil {
		t.Fatal(err)
	}
	page = html.UnescapeString(page)
	if strings.Contains(page, "<script") || strings.Contains(page, "refresh") {
		t.Errorf("a script or refresh survived:\n%s", page)
	}
	for _, want := range []string{"img-src data: cid: http: https:", "font-src data: http: https:", "default-src 'none'", "form-action 'none'"} {
		if !strings.Contains(page, want) {
			t.Errorf("the policy lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "script-src") || strings.Contains(PolicyMeta(false), "http:") {
		t.Errorf("a policy allows scripts, or the blocking one remote content")
	}
	if !strings.Contains(PolicyMeta(true), remoteCSP) || !strings.Contains(PolicyMeta(false), browserCSP) {
		t.Error("PolicyMeta is not the pages' policy")
	}
}
