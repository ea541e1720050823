package htmltext

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"sandview/model/termtext"
	"sandview/theme"
	"sandview/tui/corpus"
)

func TestRender(t *testing.T) {
	tests := []struct{ name, html, want string }{
		{"paragraphs and emphasis, as Markdown without a terminal", `<p>Hello <b>world</b> <i>it</i> <s>$50</s></p><p>Second</p>`, "Hello **world** *it* ~~$50~~\n\nSecond"},
		{"headings", `<h1>Title</h1><h2>日本語</h2><h3>Small</h3><h5>Tiny</h5>`, "# Title\n\n## 日本語\n\n### Small\n\n##### Tiny"},
		{"lists", `<ul><li>one</li><li>two</li></ul><ol start="3"><li>three</li><li>four</li></ol>`, "* one\n* two\n\n3. three\n4. four"},
		{"link text with a numbered reference", `<p>Read <a href="https://example.com/a?b=c&amp;d=e">the story</a>.</p>`,
			"Read the story [1].\n\nLinks:\n[1] https://example.com/a?b=c&d=e"},
		{"the same address keeps its number", `<a href="https://x.test/">one</a> <a href="https://x.test/">two</a> <a href="https://y.test/">three</a>`,
			"one [1] two [1] three [2]\n\nLinks:\n[1] https://x.test/\n[2] https://y.test/"},
		{"a link showing its address is not numbered", `<a href="https://x.test/">https://x.test/</a> <a href="mailto:a@x.test">a@x.test</a>`, "https://x.test/ a@x.test"},
		{"only web, mail, phone and ftp links are numbered", `<a href="javascript:alert(1)">js</a> <a href="/relative">rel</a> <a href="#top">top</a> <a href="tel:+4912345">call</a>`,
			"js rel top call [1]\n\nLinks:\n[1] tel:+4912345"},
		{"hrefs are cleaned as browsers do", "<a href=\" https://ex\tam\nple.com/p \">x</a>", "x [1]\n\nLinks:\n[1] https://example.com/p"},
		{"images show their alt text, or [image]", `<p>Logo: <img src="l.png" alt="Example  Inc"> <img src="spacer.gif" width="1" height="1"> <a href="https://x.test"><img src="b.png" alt="Buy"></a> <a href="https://y.test"><img src="c.png"></a> <img src="hero.png"></p>`,
			"Logo: [image: Example Inc] [image: Buy] [1] [image] [2] [image]\n\nLinks:\n[1] https://x.test\n[2] https://y.test"},
		{"hidden elements are left out",
			`<div style="display:none">a</div><div style="visibility: hidden">b</div><div style="opacity:0">c</div><div style="max-height:0px;overflow:hidden">d</div>` +
				`<div style="width:0">e</div><img src="t.gif" width="0" height="0" alt="f"><p hidden>g</p><div style="DISPLAY: NONE !important">h</div><span style="mso-hide: all">i</span><p>shown</p>`, "shown"},
		{"head, style, script, comments and foreign content are left out",
			`<html><head><title>T</title><style>p{}</style></head><body><script>x()</script><!-- c --><svg><text>s</text></svg><math><mi>m</mi></math><p>shown</p></body></html>`, "shown"},
		{"style sheet rules hide by class and id, not inside @media",
			`<style>.preheader{display:none !important} span#pre{visibility:hidden} @media (max-width:600px){.mobile{display:none}}</style>` +
				`<span class="x preheader">pre1</span><span id="pre">pre2</span><div class="mobile">shown on desktop</div>`, "shown on desktop"},
		{"a zero font size hides text down to a child that sets its own",
			`<div style="font-size:0">hidden <div style="font-size:14px">Column A</div> <div style="font-size:14px">Column B</div></div>`, "Column A\n\nColumn B"},
		{"preheader residue leaves no blank lines", `<p>&#847; &zwnj; &nbsp; &#8199; &shy; &#847; &zwnj; &nbsp;</p><p>Body</p>`, "Body"},
		{"data tables have their cells side by side", `<table><tr><th>Item</th><th>Price</th></tr><tr><td>Widget 日本</td><td>$10</td></tr><tr><td>Gadget</td><td>$2000</td></tr></table>`,
			" Item                                   | Price\n----------------------------------------+---------------------------------------\n Widget 日本                            | $10\n Gadget                                 | $2000"},
		{"layout tables are flattened", `<table role="presentation"><tr><td>Left</td><td>Right</td></tr></table><table><tr><td><table><tr><td>a</td><td>b</td></tr></table></td></tr></table>`,
			"Left\n\nRight\n\na\n\nb"},
		{"preformatted text keeps its indentation", "<p>Code:</p><pre>  indented\n    more</pre>", "Code:\n\n    indented\n      more"},
		{"links drawn as buttons", `<p><a class="btn btn-primary" href="https://a.test">Buy now</a> <a class="selectable" href="https://b.test">Plain</a> <a href="https://c.test" style="padding: 12px 24px">Padded</a></p>` +
			`<table><tr><td bgcolor="#3869D4" style="border-radius:3px"><a href="https://d.test">Reset</a></td></tr></table><p><a class="button" href="https://e.test"><img src="b.png" alt="Shop"></a></p>`,
			"[ Buy now ] [1] Plain [2] [ Padded ] [3]\n\n[ Reset ] [4]\n\n[image: Shop] [5]\n\nLinks:\n[1] https://a.test\n[2] https://b.test\n[3] https://c.test\n[4] https://d.test\n[5] https://e.test"},
		{"the text of a list item hangs right of its marker", `<ul><li><b>Add systems</b>. Aggregate syslog and app log files, any text data from everywhere you run things, all day.</li><li>Two<ol><li>a nested item that is long enough to wrap around the pane for sure, it is, and more</li></ol></li></ul>`,
			"* **Add systems**. Aggregate syslog and app log files, any text data from\n  everywhere you run things, all day.\n* Two\n  1. a nested item that is long enough to wrap around the pane for sure, it is,\n     and more"},
		{"text is sanitized", `<p>W&shy;SHY &#x1b;[2J clear &#x202e;gnp.exe 👨&zwj;👩</p>`, "WSHY clear gnp.exe 👨👩"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Render(tt.html, 80, Options{})
			if r.Text != tt.want {
				t.Fatalf("Render(%q) =\n%s\n%q\nwant\n%s\n%q", tt.html, r.Text, r.Text, tt.want, tt.want)
			}
			if r.Problem != "" {
				t.Fatalf("problem: %s", r.Problem)
			}
			corpus.AssertWidthsAgree(t, tt.name, r.Text)
		})
	}
}

// TestRenderKeepsAddressesWhole: an address is never broken inside; one
// longer than the line is on a line of its own, cut with "…", and whole
// behind its hyperlink and in Links.
func TestRenderKeepsAddressesWhole(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("segment-", 30) + "?q=" + strings.Repeat("x", 50)
	short := "https://acme-shop.example/p/1?ref=news-letter"
	body := `<p>Copy this link: ` + long + ` into your browser, or this one: ` + short + ` which is shorter.</p><p><a href="` + long + `">long link</a></p>` +
		`<table><tr><th>Link</th><th>Note</th></tr><tr><td>` + short + `</td><td>plain</td></tr></table>`
	style := theme.New(true, false).Markdown()
	for _, width := range []int{40, 80, 200} {
		r := Render(body, width, Options{Style: &style, Hyperlinks: true})
		corpus.AssertWidthsAgree(t, "addresses", r.Text)
		lines := strings.Split(r.Text, "\n")
		cut := long
		if len(long) >= width {
			cut = long[:width-2] + "…"
		}
		listed := long
		if len(long) > width {
			listed = long[:width-1] + "…"
		}
		shown := 0
		for _, line := range lines {
			plain := strings.TrimSpace(ansi.Strip(line))
			if n := termtext.Width(ansi.Strip(line)); n > width {
				t.Fatalf("width %d: line of %d cells: %q", width, n, plain)
			}
			if strings.Contains(plain, "segment") || strings.Contains(plain, "news-letter") || strings.Contains(plain, "acme") {
				if !strings.HasPrefix(plain, "https://") && !strings.Contains(plain, " https://") && !strings.HasPrefix(plain, "| https://") && !strings.HasPrefix(plain, "│ https://") {
					t.Fatalf("width %d: an address is broken: %q in\n%s", width, plain, ansi.Strip(r.Text))
				}
			}
			if plain == cut || plain == listed {
				shown++
				if !strings.Contains(line, ansi.SetHyperlink(long)) {
					t.Fatalf("width %d: the cut address is not a hyperlink to the whole: %q", width, line)
				}
			}
		}
		if shown != 2 { // in the text and in the list of links
			t.Fatalf("width %d: %q shown %d times on a line of its own in\n%s", width, cut, shown, ansi.Strip(r.Text))
		}
		if width > len(short) && !strings.Contains(ansi.Strip(r.Text), short+" which is shorter") {
			t.Fatalf("width %d: %q is not shown whole in\n%s", width, short, ansi.Strip(r.Text))
		}
		if len(r.Links) != 1 || r.Links[0] != long {
			t.Fatalf("links = %q", r.Links)
		}
	}
}

func TestRenderHyperlinks(t *testing.T) {
	body := `<h2><a href="https://news.test/1">Story</a></h2><p>Read <a href="https://x.test/a b">the` + "\n" + `rest</a>.</p><table><tr><th>A</th><th>B</th></tr><tr><td><a href="https://c.test">cell</a></td><td>2</td></tr></table>`
	style := theme.New(true, false).Markdown()
	plain := Render(body, 80, Options{Style: &style})
	linked := Render(body, 80, Options{Style: &style, Hyperlinks: true})
	if got, want := ansi.Strip(linked.Text), ansi.Strip(plain.Text); got != want {
		t.Fatalf("stripped hyperlinked text differs:\n%s\n---\n%s", got, want)
	}
	if strings.Contains(plain.Text, "\x1b]8;") {
		t.Fatalf("hyperlinks when they are off: %q", plain.Text)
	}
	for _, want := range []string{
		ansi.SetHyperlink("https://news.test/1") + "Story [1]",
		ansi.SetHyperlink("https://x.test/a%20b") + "the rest [2]",
		// The space of the href is written %20, as browsers do: an address
		// is one word, laid out whole (FuzzRender's 41-cell line).
		"[2] " + ansi.SetHyperlink("https://x.test/a%20b") + "https://x.test/a%20b" + ansi.ResetHyperlink(),
		ansi.SetHyperlink("https://c.test") + "cell [3]",
	} {
		if !strings.Contains(linked.Text, want) {
			t.Fatalf("missing %q in\n%q", want, linked.Text)
		}
	}
	for _, line := range strings.Split(linked.Text, "\n") {
		if strings.Count(line, "\x1b]8;;") != 2*strings.Count(line, "\x1b]8;;\a") {
			t.Fatalf("line %q leaves a hyperlink open", line)
		}
	}
	corpus.AssertWidthsAgree(t, "hyperlinked", linked.Text)
}

func TestRenderShowsTheTextOfHTMLItCannotLayOut(t *testing.T) {
	m, err := corpus.Load("hostile/huge.eml")
	if err != nil {
		t.Fatal(err)
	}
	r := Render(m.Email.HTML, 80, Options{})
	if r.Problem == "" || !strings.Contains(r.Text, "deep") || !strings.Contains(r.Text, "Row 1499 行") {
		t.Fatalf("problem %q, text %.300q", r.Problem, r.Text)
	}
	corpus.AssertWidthsAgree(t, "huge", r.Text)
}

// TestCollapsedDivsConvertAlike: the divs a flattened layout table leaves,
// one inside the other, are collapsed before the conversion, which writes
// the same Markdown for the corpus's mails as without collapsing.
func TestCollapsedDivsConvertAlike(t *testing.T) {
	mails, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	collapsed := 0
	for _, m := range mails {
		if m.Email.HTML == "" || len(m.Email.HTML) > maxLayoutBytes {
			continue
		}
		var docs [2]*html.Node
		for i := range docs {
			if docs[i], err = parse(m.Email.HTML); err != nil {
				break // shown as plain text
			}
			pr := pruner{rules: collectHidingRules(docs[i]), links: newLinkSet(true, nil), markdown: true}
			pr.prune(docs[i], false)
		}
		if docs[1] == nil {
			continue
		}
		divs := countDivs(docs[1])
		collapseDivs(docs[1])
		collapsed += divs - countDivs(docs[1])
		want, err := newConverter().ConvertNode(docs[0])
		if err != nil {
			t.Fatal(err)
		}
		got, err := toMarkdown(docs[1])
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Fatalf("%s: collapsing divs changes the Markdown:\n%s\n---\n%s", m.Name, got, want)
		}
	}
	if collapsed == 0 {
		t.Fatal("no div of the corpus was collapsed")
	}
}

func countDivs(n *html.Node) int {
	count := 0
	if n.DataAtom == atom.Div {
		count++
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		count += countDivs(c)
	}
	return count
}
