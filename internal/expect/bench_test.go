package expect

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sandview/model"
)

// benchMail is a newsletter-sized mail: 100 KB of HTML with links,
// images and tokens, and its text part.
func benchMail() model.Email {
	var html, text strings.Builder
	var links []string
	for i := 0; len(html.String()) < 100<<10; i++ {
		link := fmt.Sprintf("https://shop.example/p/%d?utm_source=mail&token=Zx%08d", i, i)
		links = append(links, link)
		fmt.Fprintf(&html, `<p>Item %d, ordered 2026-11-21 10:%02d: <a href="%s">see it</a> <img src="i%d.png" alt="item"></p>`+"\n", i, i%60, link, i)
		fmt.Fprintf(&text, "Item %d, ordered 2026-11-21 10:%02d: %s\n", i, i%60, link)
	}
	return model.Email{ID: "m", Subject: "Your order", Text: text.String(), HTML: html.String(), Links: links}
}

// BenchmarkSnapshot: the snapshot of a 100 KB newsletter (HTML laid out
// as text, every volatile value replaced).
func BenchmarkSnapshot(b *testing.B) {
	e := benchMail()
	for b.Loop() {
		Snapshot(e, "")
	}
}

// BenchmarkCheck: the standard assertions on the same mail.
func BenchmarkCheck(b *testing.B) {
	e := benchMail()
	for b.Loop() {
		Check(context.Background(), e, Options{})
	}
}
