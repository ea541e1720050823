package mailparse

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestExtractLinks(t *testing.T) {
	tests := []struct {
		name string
		text string
		html string
		want []string
	}{
		{
			name: "text with trailing punctuation",
			text: "See https://example.org/a. Or (https://example.org/b), or https://example.org/c!",
			want: []string{"https://example.org/a", "https://example.org/b", "https://example.org/c"},
		},
		{
			name: "balanced parentheses stay",
			text: "wiki: https://en.wikipedia.org/wiki/Mail_(protocol).",
			want: []string{"https://en.wikipedia.org/wiki/Mail_(protocol)"},
		},
		{
			name: "a run of closing brackets",
			text: "[see (https://example.org/x_(y)))]].",
			want: []string{"https://example.org/x_(y)"},
		},
		{
			name: "angle brackets and quotes end a URL",
			text: `<http://example.org/x> "https://example.org/y"`,
			want: []string{"http://example.org/x", "https://example.org/y"},
		},
		{
			name: "mailto kept, other schemes and bare words dropped",
			text: "write mailto:help@example.org; ftp://example.org javascript:alert(1) xhttp://no.example https:// mailto: www.example.org",
			want: []string{"mailto:help@example.org"},
		},
		{
			name: "duplicates across text and HTML keep first-seen order",
			text: "https://example.org/1 https://example.org/2 https://example.org/1",
			html: `<a href="https://example.org/2">two</a><a href="https://example.org/3">three</a>`,
			want: []string{"https://example.org/1", "https://example.org/2", "https://example.org/3"},
		},
		{
			name: "HTML attributes in every quoting style",
			html: `<a HREF = "https://example.org/q1">a</a><a href='https://example.org/q2'>b</a>` +
				`<a href=https://example.org/q3>c</a><img src="http://img.example.org/p.png">` +
				`<a href="mailto:sales@example.org?subject=Hi%20there">m</a>`,
			want: []string{"https://example.org/q1", "https://example.org/q2", "https://example.org/q3",
				"http://img.example.org/p.png", "mailto:sales@example.org?subject=Hi%20there"},
		},
		{
			name: "HTML entities decoded, unsafe schemes dropped, data attributes ignored",
			html: `<a href="https://example.org/?a=1&amp;b=2">x</a><a href="javascript:alert('x')">j</a>` +
				`<a href=" JavaScript:void(0)">k</a><img src="cid:logo@x"><img src="data:image/png;base64,AAAA">` +
				`<div data-href="https://example.org/not-a-link"></div><a href="#top">t</a>`,
			want: []string{"https://example.org/?a=1&b=2"},
		},
		{
			name: "whitespace inside an attribute URL is dropped",
			html: "<a href=\"https://example.org/long\n/path\">x</a>",
			want: []string{"https://example.org/long/path"},
		},
		{
			name: "unicode around URLs",
			text: "Voir https://exemple.fr/café — merci",
			want: []string{"https://exemple.fr/café"},
		},
		{
			name: "nothing",
			text: "no links here: just text",
			html: "<p>none = nothing</p>",
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExtractLinks(tt.text, tt.html)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ExtractLinks = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExtractLinksCapsTheCount(t *testing.T) {
	var text strings.Builder
	for i := range maxLinks + 50 {
		fmt.Fprintf(&text, "https://example.org/%d\n", i)
	}
	got := ExtractLinks(text.String(), `<a href="https://example.org/html">x</a>`)
	if len(got) != maxLinks {
		t.Fatalf("got %d links, want the cap %d", len(got), maxLinks)
	}
	if got[0] != "https://example.org/0" || got[maxLinks-1] != fmt.Sprintf("https://example.org/%d", maxLinks-1) {
		t.Errorf("kept %q ... %q, want the first ones", got[0], got[maxLinks-1])
	}
}
