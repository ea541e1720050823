package htmlcompat

import (
	"slices"
	"strings"
	"testing"
	"time"

	"sandview/tui/corpus"
)

func used(t *testing.T, doc string) uses {
	t.Helper()
	return detect(doc)
}

func TestDetect(t *testing.T) {
	doc := `<!DOCTYPE html><html lang="en"><head>
<meta name="color-scheme" content="light dark">
<style>/* c */
@media (prefers-color-scheme: dark) { .btn > a:hover, td.x#y { background: linear-gradient(#000, #111) !important; } }
@font-face { font-family: X; src: url(x.woff); }
ul li::before { content: ""; }
</style></head><body style="margin:0">
<!-- preheader -->
<table cellpadding="0" align="center" width="600"><tr><td style="display:flex; padding: 1.5em 10px; border-radius: 4px; background-image: url(data:image/png;base64,AAAA)">
<img src="https://x.test/hero.webp?v=2" alt="">
<a href="mailto:a@b.test">mail</a> <a href="#top">top</a> <s>$50</s><strike>$40</strike>
</td></tr></table></body></html>`
	u := used(t, doc)
	for _, slug := range []string{"html-doctype", "html-lang", "html-meta-color-scheme", "html-style", "css-comments",
		"css-at-media", "css-at-media-prefers-color-scheme", "css-selector-class", "css-selector-child",
		"css-pseudo-class-hover", "css-selector-grouping", "css-selector-type", "css-selector-id", "css-selector-chaining",
		"css-background", "css-linear-gradient", "css-important", "css-at-font-face", "css-selector-descendant",
		"css-pseudo-element-before", "html-body", "css-margin", "html-comments", "html-table", "html-cellpadding",
		"html-align", "html-width", "css-display", "css-display-flex", "css-padding", "css-unit-em", "css-unit-px",
		"css-border-radius", "css-background-image", "image-base64", "html-img", "image-webp", "html-mailto-links",
		"html-anchor-links", "html-strike"} {
		if u[slug] == 0 {
			t.Errorf("%s not detected", slug)
		}
	}
	for _, slug := range []string{"css-display-grid", "html-form", "css-at-import", "css-unit-percent", "image-png"} {
		if u[slug] != 0 {
			t.Errorf("%s detected, not in the document", slug)
		}
	}
}

// An implied body (no <body> in the source) is not the author's use.
func TestDetectImpliedBody(t *testing.T) {
	if u := used(t, `<p>hi</p>`); u["html-body"] != 0 || u["html-p"] != 1 {
		t.Errorf("uses = %v", u)
	}
}

const tiny = `{"last_update_date":"2026-01-01","nicenames":{"family":{"gm":"Gmail","ol":"Outlook"},"platform":{"w":"Windows","a":"Android"}},
"data":[
{"slug":"html-p","title":"p","url":"u","category":"html","stats":{"gm":{"a":{"1":"y"}},"ol":{"w":{"2007":"n","2019":"y"}}}},
{"slug":"css-display-flex","title":"flex","url":"u","category":"css","stats":{"gm":{"a":{"1":"a #1"}},"ol":{"w":{"2007":"y","2019":"n"}}}},
{"slug":"css-gap","title":"gap","url":"u","category":"css","stats":{"gm":{"a":{"1":"u"}},"ol":{"w":{"1":"n"}}}}
]}`

func TestScore(t *testing.T) {
	d, err := Parse([]byte(tiny), "test")
	if err != nil {
		t.Fatal(err)
	}
	// p: latest versions y and y (Outlook 2019 counts, not 2007).
	r := d.Check(`<p>hi</p>`)
	if r.Score != 100 || r.Clients != 2 || len(r.Offenders()) != 0 {
		t.Errorf("plain p: %+v", r)
	}
	// flex: Gmail partial (½), Outlook none (0): score 25.
	r = d.Check(`<p style="display:flex">hi</p>`)
	if r.Score != 25 {
		t.Errorf("score = %v, want 25", r.Score)
	}
	off := r.Offenders()
	if len(off) != 1 || off[0].Slug != "css-display-flex" || off[0].Support != 25 ||
		!slices.Equal(off[0].Unsupported, []Client{{"Outlook", "Windows"}}) ||
		!slices.Equal(off[0].Partial, []Client{{"Gmail", "Android"}}) {
		t.Errorf("offenders = %+v", off)
	}
	// gap: unknown for Gmail does not count against it.
	r = d.Check(`<p style="gap:1px">hi</p>`)
	if r.Score != 50 || r.Features[0].Support != 0 {
		t.Errorf("gap: %+v", r)
	}
}

func TestEmbeddedData(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.features) < 300 || len(d.clients) < 40 || d.Version == "" {
		t.Fatalf("data: %d features, %d clients, version %q", len(d.features), len(d.clients), d.Version)
	}
	r := d.Check(`<html><body><div style="display:grid; gap: 4px">x</div></body></html>`)
	var slugs []string
	for _, f := range r.Offenders() {
		slugs = append(slugs, f.Slug)
	}
	if r.Score <= 0 || r.Score >= 100 || !slices.Contains(slugs, "css-display-grid") || !slices.Contains(slugs, "css-gap") {
		t.Errorf("report: score %v, offenders %v", r.Score, slugs)
	}
	for i := 1; i < len(r.Features); i++ {
		if r.Features[i-1].Support > r.Features[i].Support {
			t.Errorf("features not worst first: %v", slugs)
		}
	}
}

func TestHostileInput(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("<div>", 3000) + "x" + strings.Repeat("</div>", 3000)
	big := "<style>" + strings.Repeat("@media (x) { ", 5000) + strings.Repeat(".a{color:red}", 200000) + "</style>" +
		strings.Repeat(`<p style="margin:1px;;:;:x">y</p>`, 50000) + "<p>" + strings.Repeat("text ", 200000)
	if len(big) < 5<<20 {
		t.Fatalf("the big document is %d bytes", len(big))
	}
	for name, doc := range map[string]string{"deep": deep, "big": big, "broken": `<p style="a:(((;b:'">< style>{{{{`} {
		start := time.Now()
		if r := d.Check(doc); r.Clients == 0 || len(r.Features) == 0 {
			t.Errorf("%s: nothing read: %+v", name, r)
		}
		t.Logf("%s (%d bytes): %v", name, len(doc), time.Since(start))
	}
}

func TestClients(t *testing.T) {
	got := Clients([]Client{{"Outlook", "Windows"}, {"Outlook", "iOS"}, {"Yahoo! Mail", "Android"}})
	if got != "Outlook (Windows, iOS), Yahoo! Mail (Android)" {
		t.Errorf("Clients = %q", got)
	}
}

// Every HTML part of the mail corpus (real mail of other programs and the
// hostile set) is read: a score in range, features known to the data.
func TestCorpus(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	mails, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	checked, offending := 0, 0
	for _, m := range mails {
		if m.Email.HTML == "" {
			continue
		}
		checked++
		r := d.Check(m.Email.HTML)
		if r.Score < 0 || r.Score > 100 || len(r.Features) == 0 && r.Score != 100 || len(r.Offenders()) > 0 && r.Score == 100 {
			t.Errorf("%s: score %v, %d features", m.Name, r.Score, len(r.Features))
		}
		if len(r.Offenders()) > 0 {
			offending++
		}
		for _, f := range r.Features {
			if !d.Has(f.Slug) || f.Uses <= 0 {
				t.Errorf("%s: feature %+v", m.Name, f)
			}
		}
	}
	if checked < 10 || offending < checked/4 {
		t.Errorf("%d HTML mails in the corpus, %d with features some client lacks", checked, offending)
	}
}
