package expect

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// htmlFacts is what the HTML assertions need of a document, read in one
// pass of the tokenizer (any depth, any breakage).
type htmlFacts struct {
	hasHTML     bool
	images      int
	noAlt       []string // the src of each image without an alt attribute
	scripts     []string // each script: its src, or "inline"
	remoteFonts []string // remote stylesheets and fonts: their URLs
}

var (
	// cssRemoteImport finds @import of a remote stylesheet.
	cssRemoteImport = regexp.MustCompile(`(?i)@import\s+(?:url\(\s*)?["']?((?:https?:)?//[^"')\s;]+)`)
	// cssFontFace finds @font-face blocks.
	cssFontFace = regexp.MustCompile(`(?is)@font-face\s*\{[^}]*\}`)
	// cssRemoteURL finds a remote url() in CSS.
	cssRemoteURL = regexp.MustCompile(`(?i)url\(\s*["']?((?:https?:)?//[^"')\s]+)`)
)

// remote reports whether a URL is fetched from the network when shown.
func remote(u string) bool {
	u = strings.ToLower(strings.TrimSpace(u))
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "//")
}

// readHTML reads doc's images, scripts and remote fonts and stylesheets.
func readHTML(doc string) htmlFacts {
	f := htmlFacts{hasHTML: doc != ""}
	z := html.NewTokenizer(strings.NewReader(doc))
	inStyle := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return f
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			inStyle = t.Data == "style"
			f.element(t)
		case html.EndTagToken:
			inStyle = false
		case html.TextToken:
			if inStyle {
				f.stylesheet(string(z.Text()))
			}
		}
	}
}

// element records an image, a script or a remote stylesheet.
func (f *htmlFacts) element(t html.Token) {
	attr := func(key string) (string, bool) {
		for _, a := range t.Attr {
			if strings.EqualFold(a.Key, key) {
				return a.Val, true
			}
		}
		return "", false
	}
	switch t.Data {
	case "img":
		f.images++
		if _, ok := attr("alt"); !ok {
			src, _ := attr("src")
			f.noAlt = append(f.noAlt, firstNonBlank(src, "an image without src"))
		}
	case "script":
		src, _ := attr("src")
		f.scripts = append(f.scripts, firstNonBlank(src, "inline"))
	case "link":
		href, _ := attr("href")
		rel, _ := attr("rel")
		if remote(href) && (strings.Contains(strings.ToLower(rel), "stylesheet") || strings.Contains(strings.ToLower(rel), "preload")) {
			f.remoteFonts = append(f.remoteFonts, href)
		}
	}
	if style, ok := attr("style"); ok {
		f.stylesheet(style)
	}
}

// stylesheet records a style sheet's remote imports and fonts.
func (f *htmlFacts) stylesheet(css string) {
	for _, m := range cssRemoteImport.FindAllStringSubmatch(css, -1) {
		f.remoteFonts = append(f.remoteFonts, m[1])
	}
	for _, face := range cssFontFace.FindAllString(css, -1) {
		for _, m := range cssRemoteURL.FindAllStringSubmatch(face, -1) {
			f.remoteFonts = append(f.remoteFonts, m[1])
		}
	}
}

func (f htmlFacts) imageAlt() Result {
	r := Result{Name: ImageAlt, Expected: "every image has alt text (alt=\"\" for decoration)", Passed: len(f.noAlt) == 0}
	switch {
	case !f.hasHTML:
		r.Found = "no HTML part"
	case r.Passed:
		r.Found = fmt.Sprintf("%d images, each with alt", f.images)
	default:
		r.Found = fmt.Sprintf("%d of %d images without alt: %s", len(f.noAlt), f.images, listed(f.noAlt))
	}
	return r
}

func (f htmlFacts) remoteContent() Result {
	r := Result{Name: RemoteContent, Expected: "no remote fonts or stylesheets, no scripts", Passed: len(f.scripts)+len(f.remoteFonts) == 0}
	var found []string
	if len(f.scripts) > 0 {
		found = append(found, "scripts: "+listed(f.scripts))
	}
	if len(f.remoteFonts) > 0 {
		found = append(found, "remote fonts or stylesheets: "+listed(f.remoteFonts))
	}
	r.Found = strings.Join(found, "; ")
	if r.Passed {
		r.Found = "none"
	}
	return r
}

// firstNonBlank is the first value that is not blank.
func firstNonBlank(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
