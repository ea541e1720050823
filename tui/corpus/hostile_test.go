package corpus

import (
	"bytes"
	"flag"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/hostile from the generator")

// TestHostileCorpusIsCurrent checks that testdata/hostile holds exactly
// what hostileMails generates (go test -run HostileCorpus -update rewrites it).
func TestHostileCorpusIsCurrent(t *testing.T) {
	dir := filepath.Join("testdata", "hostile")
	want := hostileMails()
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, raw := range want {
			if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Fatalf("testdata/hostile has %d files, the generator makes %d; run with -update", len(entries), len(want))
	}
	for name, raw := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("testdata/hostile/%s differs from the generator (%v); run with -update", name, err)
		}
	}
}

// hostileMails generates the hostile set, by file name.
func hostileMails() map[string][]byte {
	family := "👨\u200d👩\u200d👧\u200d👦"
	england := "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
	preheader := strings.Repeat("&#847; &zwnj; &nbsp; &#8199; &shy; ", 60)
	preheaderText := strings.Repeat("\u034f \u200c \u00a0 \u2007 \u00ad ", 60)
	invisible := "\u034f\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064" +
		"\u2066\u2067\u2068\u2069\u206a\u206f\ufeff\ufff9\ufffa\ufffb\u3164\uffa0\u115f\u1160\ufe00\ufe0e\ufe0f" +
		"\U000e0001\U000e0020\U000e0041\U000e007f\U000e0100\U000e01ef\u00ad\u0600\u06dd\u070f\U000110bd\U0001d173"
	return map[string][]byte{
		"soft-hyphen.eml": textMail("W\u00adSHY: Ver\u00adsand\u00adbe\u00adstä\u00adti\u00adgung", "Shop <shop@example.de>",
			"Ihre Be\u00adstel\u00adlung wur\u00adde ver\u00adsandt.\nDonau\u00addampf\u00adschiff\u00adfahrts\u00adge\u00adsell\u00adschaft\n"),
		"preheader.eml": alternativeMail("Your weekly digest", "Digest <news@example.com>",
			preheaderText+"\nThis week: three stories.\n",
			`<html><body><div style="display:none;font-size:1px;max-height:0px;max-width:0px;opacity:0;overflow:hidden;mso-hide:all">This week: three stories you should not miss</div>`+
				`<div style="display:none">`+preheader+`</div><p>`+preheader+`</p><h1>Weekly digest</h1><p>This week: three stories.</p></body></html>`),
		"emoji.eml": alternativeMail(family+" Family 👍🏽 🇩🇪 1\ufe0f\u20e3 "+england+" \u2764\ufe0f", "Emoji 😀 Sender <emoji@example.com>",
			"ZWJ family: "+family+"\nWoman technologist: 👩\u200d💻\nRainbow flag: 🏳\ufe0f\u200d🌈\nSkin tones: 👍🏻 👍🏼 👍🏽 👍🏾 👍🏿 👋🏽\u200d\nFlags: 🇩🇪 🇯🇵 🇺🇸 🇩 🇪🇺🇳\nKeycaps: 1\ufe0f\u20e3 #\ufe0f\u20e3 *\u20e3\nTag flag: "+england+"\nPresentation: \u2764\ufe0f \u2764\ufe0e \u263a\ufe0f \u00a9\ufe0f\nNew emoji: \U0001fae9 \U0001faea\n",
			"<p>"+family+" 👍🏽 🇩🇪 1\ufe0f\u20e3 "+england+"</p><table><tr><th>Emoji</th><th>Name</th></tr><tr><td>"+family+"</td><td>family</td></tr><tr><td>👍🏽</td><td>thumbs up, medium</td></tr><tr><td>🇩🇪</td><td>flag</td></tr></table>"),
		"cjk.eml": textMail("【重要】ご注文の確認 – 注文番号 #12345", "山田太郎 <taro@example.jp>",
			"山田様\n\nご注文ありがとうございます。配送状況は以下のリンクからご確認いただけます。\n中文：您的订单已发货。한국어: 주문이 발송되었습니다.\n全角：ＡＢＣ１２３！\n"+strings.Repeat("長", 1000)+"\n"),
		"rtl-bidi.eml": attachmentMail("invoice\u202efdp.exe", "\u202eresu\u202c <bidi@example.com>",
			"שלום עולם — مرحبا بالعالم\nMixed: abc \u2067שלום\u2069 def \u061c123\nOverride: \u202egnp.exe\u202c\n", "report\u202excod.exe"),
		"complex-scripts.eml": textMail("नमस्ते दुनिया — தமிழ் — ไทย", "हिन्दी <hindi@example.in>",
			"Devanagari: नमस्ते हिन्दी क्षत्रिय\nTamil: தமிழ் கொ\nBengali: বাংলা\nThai: ภาษาไทย กำ\nKhmer: ព្រះរាជាណាចក្រ\n"+
				"Decomposed Hangul: \u1100\u1161\u11a8 \u1112\u1161\u11ab\nZalgo: Z"+strings.Repeat("\u0301\u0316\u0334", 30)+"algo\n"),
		"long-lines.eml": alternativeMail("Long lines", "Long <long@example.com>",
			strings.Repeat("0123456789", 200)+"\n"+strings.Repeat("幅", 1000)+"\nhttps://example.com/"+strings.Repeat("a", 2000)+"\n",
			"<p>"+strings.Repeat("word ", 400)+"</p><p><a href=\"https://example.com/"+strings.Repeat("b", 2000)+"\">a very long link</a></p><pre>"+strings.Repeat("x", 2000)+"</pre>"),
		"controls.eml": controlsMail(),
		"invisible.eml": alternativeMail("In"+invisible+"visible", "\u3164 <invisible@example.com>",
			"Every"+invisible+"thing invisible.\n", "<p>Every"+invisible+"thing &shy;&zwj;&zwnj;&#x200b;&#xfeff; invisible.</p>"),
		"malformed-html.eml": alternativeMail("Malformed HTML", "Broken <broken@example.com>", "", malformedHTML()),
		"newsletter.eml":     alternativeMail("The Weekly Newsletter", "Newsletter <news@example.com>", "See the HTML version.\n", newsletterHTML(200_000)),
		"huge.eml":           alternativeMail("Huge HTML", "Huge <huge@example.com>", "", hugeHTML()),
	}
}

// header encodes a header value for mail (RFC 2047 where needed).
func header(name, value string) string {
	return name + ": " + mime.BEncoding.Encode("utf-8", value) + "\r\n"
}

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

func envelope(subject, from string) string {
	return header("From", from) + "To: inbox@sandview.test\r\n" + header("Subject", subject) +
		"Date: Mon, 23 Nov 2026 10:00:00 +0000\r\nMessage-ID: <corpus@sandview.test>\r\nMIME-Version: 1.0\r\n"
}

func textMail(subject, from, text string) []byte {
	return []byte(envelope(subject, from) + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + crlf(text))
}

func alternativeMail(subject, from, text, html string) []byte {
	return []byte(envelope(subject, from) + "Content-Type: multipart/alternative; boundary=\"b1\"\r\n\r\n" +
		"--b1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + crlf(text) + "\r\n" +
		"--b1\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + crlf(html) + "\r\n--b1--\r\n")
}

func attachmentMail(subject, from, text, filename string) []byte {
	return []byte(envelope(subject, from) + "Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n" +
		"--b1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + crlf(text) + "\r\n" +
		"--b1\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename*=utf-8''" +
		strings.ReplaceAll(mime.QEncoding.Encode("utf-8", filename), "=?utf-8?q?", "") + "\r\nContent-Transfer-Encoding: base64\r\n\r\nAAAA\r\n--b1--\r\n")
}

// controlsMail carries terminal escapes and control characters in its
// subject, a header and its body.
func controlsMail() []byte {
	subject := "Clear\x1b[2J\x1b[H screen \x1b]52;c;ZXZpbA==\x07 bell\x07 tab\there cr\rEVIL \u009b31m"
	body := "Tabs:\tone\ttwo\t\tthree\nCSI: \x1b[31mred\x1b[0m\nOSC 8: \x1b]8;;https://evil.test\x1b\\click\x1b]8;;\x1b\\\n" +
		"C1: \u0085\u008d\u009b2J\u009d0;title\u009c\nNUL\x00 DEL\x7f BS\x08 FF\x0c VT\x0b\nCR overwrite: safe\rEVIL\n"
	return []byte(envelope(subject, "Escapes <escapes@example.com>") + "X-Evil: \x1b]0;pwned\x07value\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + crlf(body))
}

func malformedHTML() string {
	return `<html><head><style>.hide{display:none} .x{</style><script>alert("x")</script></head><body>` +
		`<p>Unclosed <b>bold <i>italic <a href="https://a.test">link <a href="https://b.test">nested link</a></p>` +
		`</td></tr><td>stray cell</td><table><td>cell without row<table><tr><td>inner` +
		`<math><mtable><mtr><mtd>math cell</mtd></mtr></mtable></math><svg><text>svg text</text><td>svg td</td></svg>` +
		`<span class="hide">hidden by class</span><p hidden>hidden attribute</p>` +
		`<![CDATA[ cdata ]]><!-- comment --><textarea>text area</textarea><noscript>no script</noscript>` +
		`Entities: &#0; &#x1b;[2J &#xD800; &#x110000; &#x9b;31m &#8238;gnp.exe &bogus; &amp` +
		`<a href="java` + "\n" + `script:alert(1)">js link</a> <a href="data:text/html,x">data link</a> <a href=" https://ex` + "\t" + `ample.com/a b ">spaced href</a>` +
		`<img alt="alt with &#x1b;]52;c;eA==&#x07; escape" src="x"><img alt="` + strings.Repeat("long alt ", 50) + `">` +
		`<ol start="x"><li>bad start</li></ol><ol start="-3"><li>negative</li><li>next</li></ol>` +
		`<table><thead><tr><th>A</th><th>B</th></tr><tr><th>A2</th><th>B2</th></tr></thead><tr><th>row head</th><td>1</td><td>extra</td></tr><tfoot><tr><td>f1</td><td>f2</td></tr></tfoot></table>` +
		`<table><tr><td colspan="2">span</td></tr><tr><td>x</td><td>y</td></tr></table>` +
		`<div style="display:none"><div style="display:block">still hidden</div></div><div style="font-size:0">zero font<span style="font-size:12px"> shown</span></div>`
}

// newsletterHTML is a marketing newsletter of about size bytes: nested
// layout tables, a hidden preheader, images, many links, a receipt table.
func newsletterHTML(size int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Newsletter</title><style>` +
		`.preheader{display:none!important;visibility:hidden;mso-hide:all;font-size:1px;max-height:0;opacity:0;overflow:hidden}` +
		`@media only screen and (max-width:600px){.desktop{display:none!important}}</style></head><body style="margin:0">` +
		`<span class="preheader">Deals inside: up to 50% off this week only</span><div style="display:none">` +
		strings.Repeat("&#847; &zwnj; &nbsp; &#8199; &shy; ", 40) + `</div>` +
		`<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">` +
		`<table role="presentation" width="600"><tr><td><a href="https://news.example.com/?utm_source=nl&amp;utm_medium=email&amp;utm_campaign=weekly"><img src="https://cdn.example.com/logo.png" alt="Example News" width="200" height="50"></a></td>` +
		`<td align="right"><a href="https://news.example.com/view-in-browser?id=0123456789abcdef">View in browser</a></td></tr></table>`)
	for i := 0; b.Len() < size-3000; i++ {
		fmt.Fprintf(&b, `<table role="presentation" width="600"><tr><td style="padding:20px">`+
			`<h2><a href="https://news.example.com/articles/%d?utm_source=newsletter&amp;utm_medium=email&amp;utm_campaign=weekly&amp;utm_content=headline">Story %d: Something happened in the world today</a></h2>`+
			`<img src="https://cdn.example.com/img/%d.jpg" alt="Photo for story %d" width="560" height="300">`+
			`<p style="font-family:Arial,sans-serif;font-size:16px;line-height:24px;color:#333333">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Grüße – “quoted” … 日本語のテキスト。</p>`+
			`<div style="font-size:0"><div style="display:inline-block;width:280px;font-size:14px"><a href="https://news.example.com/articles/%d/share?network=twitter">Share</a></div>`+
			`<div style="display:inline-block;width:280px;font-size:14px"><a href="https://news.example.com/articles/%d#comments">Comments (%d)</a></div></div>`+
			`<img src="https://track.example.com/open/%d.gif" width="1" height="1" style="display:block;width:1px;height:1px;border:0" alt="">`+
			`</td></tr></table>`, i, i, i, i, i, i, i*7, i)
	}
	b.WriteString(`<table width="600"><tr><th>Item</th><th>Qty</th><th>Price</th></tr>` +
		`<tr><td>Widget 日本</td><td>1</td><td>$10.00</td></tr><tr><td>Gadget 👍🏽</td><td>2</td><td>$5.50</td></tr>` +
		`<tr><td>Total</td><td></td><td>$21.00</td></tr></table>` +
		`<p style="font-size:12px;color:#999">You are receiving this because you subscribed. <a href="https://news.example.com/unsubscribe?token=abcdef0123456789abcdef0123456789">Unsubscribe</a> · <a href="mailto:support@example.com">support@example.com</a></p>` +
		`</td></tr></table></body></html>`)
	return b.String()
}

// hugeHTML is 180 KB of HTML nested 3,000 divs deep, with a data table of
// 1,500 rows.
func hugeHTML() string {
	var b strings.Builder
	b.WriteString("<html><body>")
	b.WriteString(strings.Repeat("<div>", 3000) + "deep" + strings.Repeat("</div>", 3000))
	b.WriteString("<table><tr><th>#</th><th>Name</th><th>Link</th></tr>")
	for i := range 1500 {
		fmt.Fprintf(&b, `<tr><td>%d</td><td>Row %d 行</td><td><a href="https://example.com/rows/%d">row %d</a></td></tr>`, i, i, i, i)
	}
	b.WriteString("</table></body></html>")
	return b.String()
}
