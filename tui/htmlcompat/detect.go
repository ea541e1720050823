package htmlcompat

import (
	"path"
	"strings"

	"golang.org/x/net/html"
)

// uses counts the caniemail features a document uses, by slug.
type uses map[string]int

func (u uses) add(slug string) { u[slug]++ }

// elementSlugs maps an element to its caniemail feature.
var elementSlugs = map[string]string{
	"abbr": "html-abbr", "acronym": "html-acronym", "address": "html-address", "audio": "html-audio",
	"base": "html-base", "bdi": "html-bdi", "blockquote": "html-blockquote", "body": "html-body",
	"code": "html-code", "del": "html-del", "dfn": "html-dfn", "dialog": "html-dialog", "div": "html-div",
	"form": "html-form", "h1": "html-h1-h6", "h2": "html-h1-h6", "h3": "html-h1-h6", "h4": "html-h1-h6",
	"h5": "html-h1-h6", "h6": "html-h1-h6", "hr": "html-hr", "img": "html-img", "link": "html-link",
	"ul": "html-lists", "ol": "html-lists", "dl": "html-lists", "marquee": "html-marquee", "meter": "html-meter",
	"object": "html-object", "p": "html-p", "picture": "html-picture", "pre": "html-pre",
	"progress": "html-progress", "rp": "html-rp", "rt": "html-rt", "ruby": "html-ruby", "select": "html-select",
	"small": "html-small", "span": "html-span", "strike": "html-strike", "strong": "html-strong",
	"style": "html-style", "svg": "html-svg", "table": "html-table", "textarea": "html-textarea",
	"video": "html-video", "wbr": "html-wbr", "map": "html-image-maps",
	"article": "html-semantics", "aside": "html-semantics", "details": "html-semantics",
	"figcaption": "html-semantics", "figure": "html-semantics", "footer": "html-semantics",
	"header": "html-semantics", "main": "html-semantics", "mark": "html-semantics", "nav": "html-semantics",
	"section": "html-semantics", "summary": "html-semantics", "time": "html-semantics",
}

// attributeSlugs maps an attribute (on any element) to its feature.
var attributeSlugs = map[string]string{
	"align": "html-align", "background": "html-background", "cellpadding": "html-cellpadding",
	"cellspacing": "html-cellspacing", "dir": "html-dir", "height": "html-height", "width": "html-width",
	"hidden": "html-hidden", "lang": "html-lang", "loading": "html-loading-attribute",
	"required": "html-required", "role": "html-role", "srcset": "html-srcset", "target": "html-target",
	"valign": "html-valign", "popover": "html-popover", "inert": "css-inert-attribute",
	"aria-describedby": "html-aria-describedby", "aria-hidden": "html-aria-hidden",
	"aria-label": "html-aria-label", "aria-labelledby": "html-aria-labelledby", "aria-live": "html-aria-live",
}

// imageSlugs maps an image file extension to its format's feature.
var imageSlugs = map[string]string{
	".apng": "image-apng", ".avif": "image-avif", ".bmp": "image-bmp", ".gif": "image-gif",
	".heif": "image-heif", ".heic": "image-heif", ".ico": "image-ico", ".jpg": "image-jpg",
	".jpeg": "image-jpg", ".png": "image-png", ".svg": "image-svg", ".tif": "image-tiff",
	".tiff": "image-tiff", ".webp": "image-webp",
}

// detect reads the document's tokens and records what it uses. The
// tokenizer (not the tree builder) keeps any depth and any breakage
// readable, and sees only what the author wrote (no implied body).
func detect(doc string) uses {
	u := uses{}
	z := html.NewTokenizer(strings.NewReader(doc))
	inStyle := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return u
		case html.DoctypeToken:
			u.add("html-doctype")
		case html.CommentToken:
			u.add("html-comments")
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			element(u, t)
			inStyle = t.Data == "style"
		case html.EndTagToken:
			inStyle = false
		case html.TextToken:
			if inStyle {
				stylesheet(u, string(z.Text()))
			}
		}
	}
}

// element records an element, its attributes and their CSS.
func element(u uses, t html.Token) {
	tag := t.Data
	if slug, ok := elementSlugs[tag]; ok {
		u.add(slug)
	}
	for _, a := range t.Attr {
		key := strings.ToLower(a.Key)
		if slug, ok := attributeSlugs[key]; ok {
			u.add(slug)
		}
		if key == "style" {
			declarations(u, a.Val)
		}
	}
	switch tag {
	case "a":
		href := strings.TrimSpace(attr(t, "href"))
		switch {
		case strings.HasPrefix(href, "#"):
			u.add("html-anchor-links")
		case strings.HasPrefix(strings.ToLower(href), "mailto:"):
			u.add("html-mailto-links")
		}
	case "input":
		switch t := strings.ToLower(attr(t, "type")); t {
		case "checkbox", "hidden", "radio", "reset", "submit", "text":
			u.add("html-input-" + t)
		case "":
			u.add("html-input-text")
		}
	case "button":
		switch t := strings.ToLower(attr(t, "type")); t {
		case "reset", "submit":
			u.add("html-button-" + t)
		}
	case "meta":
		if strings.EqualFold(attr(t, "name"), "color-scheme") {
			u.add("html-meta-color-scheme")
		}
	case "img":
		image(u, attr(t, "src"))
	}
}

// image records an image's format, from a data URL or the file name.
func image(u uses, src string) {
	src = strings.TrimSpace(src)
	if rest, ok := strings.CutPrefix(strings.ToLower(src), "data:"); ok {
		u.add("image-base64")
		if mime, _, ok := strings.Cut(rest, ";"); ok {
			if slug, ok := imageSlugs["."+strings.TrimPrefix(strings.TrimSuffix(mime, "+xml"), "image/")]; ok {
				u.add(slug)
			}
		}
		return
	}
	p, _, _ := strings.Cut(src, "?")
	p, _, _ = strings.Cut(p, "#")
	if slug, ok := imageSlugs[strings.ToLower(path.Ext(p))]; ok {
		u.add(slug)
	}
}

// attr is an attribute's value, "" when absent.
func attr(t html.Token, key string) string {
	for _, a := range t.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}
