package model

import "testing"

func TestNamesAddress(t *testing.T) {
	for _, c := range []struct {
		recipient, address string
		want               bool
	}{
		{"qa@sandbox.test", "QA@Sandbox.test", true},
		{"<qa@sandbox.test>", "qa@sandbox.test", true},
		{`"Q. A." <qa@sandbox.test>`, "qa@sandbox.test", true},
		{" qa@sandbox.test ", "qa@sandbox.test", true},
		{"aqa@sandbox.test", "qa@sandbox.test", false},
		{"qa@sandbox.test.example", "qa@sandbox.test", false},
		{`"qa@sandbox.test" <other@sandbox.test>`, "qa@sandbox.test", false},
	} {
		if got := NamesAddress(c.recipient, c.address); got != c.want {
			t.Errorf("NamesAddress(%q, %q) = %v, want %v", c.recipient, c.address, got, c.want)
		}
	}
	e := Email{To: []string{"a@x.test", "Bee <b@x.test>"}}
	if !e.SentTo("B@x.test") || e.SentTo("c@x.test") {
		t.Fatal("SentTo does not look at every recipient")
	}
}
