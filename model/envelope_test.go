package model

import (
	"slices"
	"testing"
)

func TestShownToLabelsTheEnvelope(t *testing.T) {
	env := &Envelope{From: "s@x.test", To: []string{"bcc@x.test"}}
	for _, c := range []struct {
		name     string
		e        Email
		want     []string
		envelope bool
		text     string
	}{
		{"header", Email{To: []string{"v@x.test"}, Envelope: env}, []string{"v@x.test"}, false, "v@x.test"},
		{"no To", Email{To: []string{}, Envelope: env}, []string{"bcc@x.test"}, true, "bcc@x.test (envelope)"},
		{"To: baz", Email{To: []string{"baz"}, Envelope: env}, []string{"bcc@x.test"}, true, "bcc@x.test (envelope)"},
		{"no envelope", Email{To: []string{"baz"}}, []string{"baz"}, false, "baz"},
		{"neither", Email{}, nil, false, ""},
	} {
		to, fromEnv := c.e.ShownTo()
		if !slices.Equal(to, c.want) || fromEnv != c.envelope || c.e.ShownToText() != c.text {
			t.Errorf("%s: ShownTo = %q, %v; text %q", c.name, to, fromEnv, c.e.ShownToText())
		}
	}
	bcc := Email{To: []string{"v@x.test"}, Envelope: env}
	if !bcc.SentTo("BCC@x.test") || !bcc.SentTo("v@x.test") || bcc.SentTo("s@x.test") {
		t.Fatal("SentTo does not look at the envelope recipients")
	}
}
