package ui

import "testing"

// TestLinkTextTakesTheLongestLink: where two links start at one place the
// longer one is linked, and text around the links is kept.
func TestLinkTextTakesTheLongestLink(t *testing.T) {
	links := []string{"https://a.example/x", "https://a.example/x/y", ""}
	got := LinkText("see https://a.example/x/y and https://a.example/x.", links)
	want := "see " + Hyperlink("https://a.example/x/y", "https://a.example/x/y") + " and " + Hyperlink("https://a.example/x", "https://a.example/x") + "."
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
