package ui_test

import (
	"strings"
	"testing"

	"sandview/model/termtext"
	"sandview/tui/corpus"
	"sandview/tui/htmltext"
	"sandview/tui/ui"
)

// The corpus test lives outside package ui: it renders HTML with
// tui/htmltext, which uses ui's hyperlinks.

func TestWrapLosesNothingOfTheCorpus(t *testing.T) {
	mails, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mails {
		text := termtext.Sanitize(m.Email.Text) + "\n" + htmltext.Render(termtext.Sanitize(m.Email.HTML), 80, htmltext.Options{}).Text
		text = strings.ReplaceAll(text, "\t", "    ")
		for _, paragraph := range strings.Split(text, "\n") {
			if len(paragraph) > 4000 {
				paragraph = paragraph[:strings.LastIndex(paragraph[:4000], " ")+1]
			}
			ui.AssertWrapKeepsText(t, paragraph, 37)
		}
	}
}
