package htmltext

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"sandview/model"
	"sandview/tui/corpus"
)

// TestPartsConvertAsWhole checks that the Markdown of a document
// converted in parts at once is that of the document converted whole,
// for every HTML mail of the corpus cut into 2 to 5 parts, and blocks of
// each kind cut between every two, and that the newsletter is cut.
func TestPartsConvertAsWhole(t *testing.T) {
	mails, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	blocks := []string{"<p>one&nbsp;</p>", "<p>&nbsp;</p>", "<ol start=3><li>three</li><li>four</li></ol>", "<ul><li>a<ul><li>b</li></ul></li></ul>",
		"<blockquote><p>quoted</p><p>&nbsp;</p></blockquote>", "<pre>  code\n\n  more</pre>", "<h2>Title *x*</h2>", "<hr>",
		"<table><tr><th>Item</th><th>Qty</th></tr><tr><td>Widget</td><td>2</td></tr></table>", "<p>line<br></p>", "<div>1. not a list</div>",
		"<p><s>$50.99</s> <b>$20.99</b></p>", "<div><div>&nbsp;</div></div>", "<p>- dash</p>", "<div>   </div>", "<p>end</p>"}
	mails = append(mails, corpus.Mail{Name: "blocks", Email: model.Email{HTML: "<body>" + strings.Join(blocks, "\n") + "</body>"}})
	cut := 0
	for _, m := range mails {
		if _, err := parse(m.Email.HTML); m.Email.HTML == "" || err != nil {
			continue // nothing to convert: the reader shows it as plain text
		}
		for n := 2; n <= 5 || m.Name == "blocks" && n <= len(blocks); n++ {
			whole, parts := prunedDoc(t, m.Email.HTML), prunedDoc(t, m.Email.HTML)
			collapseDivs(whole)
			md, err := newConverter().ConvertNode(whole)
			if err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
			if got := len(blockParts(prunedDoc(t, m.Email.HTML), n, 1)); got > 1 {
				cut++
			} else if m.Name == "hostile/newsletter.eml" {
				t.Fatalf("the newsletter is not cut into %d parts", n)
			}
			got, err := convertInParts(parts, n, 1)
			if err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
			if want := strings.Trim(string(md), "\n"); got != want {
				t.Fatalf("%s in %d parts:\n%q\nwhole:\n%q", m.Name, n, got, want)
			}
		}
	}
	if cut == 0 {
		t.Fatal("no document was cut into parts")
	}
	t.Logf("%d conversions in parts", cut)
}

func prunedDoc(t *testing.T, body string) *html.Node {
	t.Helper()
	doc, err := parse(body)
	if err != nil {
		t.Fatal(err)
	}
	pr := pruner{rules: collectHidingRules(doc), links: newLinkSet(true, nil), markdown: true}
	pr.prune(doc, false)
	return doc
}
