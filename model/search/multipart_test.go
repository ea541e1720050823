package search

import (
	"testing"

	"sandview/model"
)

// TestFreeTextSearchesBothParts: free text finds a word that only the HTML
// part of a mail with a text part holds (as text: tags are not searched),
// a word only the text part holds, and the HTML of an HTML-only mail.
func TestFreeTextSearchesBothParts(t *testing.T) {
	newsletter := model.Email{
		ID: "news", HasContent: true, Subject: "Spring sale",
		Text: "Spring sale: see the HTML version.",
		HTML: `<p>Use code <b>SPRING70</b> at <a href="https://shop.test/sale">the shop</a></p>`,
	}
	htmlOnly := model.Email{ID: "html", HasContent: true, HTML: `<p>Only <i>HTML</i> here</p>`}
	for _, tc := range []struct {
		query string
		email model.Email
		want  bool
	}{
		{"SPRING70", newsletter, true},
		{"spring70", newsletter, true},
		{"https://shop.test/sale", newsletter, true},
		{"version", newsletter, true},
		{"<b>", newsletter, false},
		{"code SPRING70", newsletter, true},
		{"absent", newsletter, false},
		{"HTML here", htmlOnly, true},
	} {
		if got := NewIndex().Match(mustParse(t, tc.query), tc.email); got != tc.want {
			t.Errorf("%q on %s: %v, want %v", tc.query, tc.email.ID, got, tc.want)
		}
	}
}
