package search

import (
	"testing"
	"time"

	"sandview/model"
)

// TestEnvelopeRecipients: to: finds a recipient of the To header or of
// the envelope, rcpt: only of the envelope, and free text a Bcc recipient
// (one the envelope alone names), with or without content loaded.
func TestEnvelopeRecipients(t *testing.T) {
	bcc := model.Email{ID: "bcc", HasContent: true, From: "ops@x.test", To: []string{"visible@x.test"},
		Subject: "reset", Envelope: &model.Envelope{From: "ops@x.test", To: []string{"visible@x.test", "admin-bcc@x.test"}}}
	listed := bcc
	listed.HasContent = false
	plain := model.Email{ID: "plain", HasContent: true, From: "ops@x.test", To: []string{"admin-bcc@x.test"}, Subject: "hi"}
	for _, c := range []struct {
		query string
		e     model.Email
		want  bool
	}{
		{"to:admin-bcc", bcc, true},
		{"to:admin-bcc", listed, true},
		{"to:visible", bcc, true},
		{"rcpt:admin-bcc", bcc, true},
		{"rcpt:admin-bcc", listed, true},
		{"rcpt:admin-bcc", plain, false}, // the header alone is no envelope
		{"-rcpt:admin-bcc", plain, true},
		{"to:admin-bcc", plain, true},
		{"admin-bcc", bcc, true},
		{"admin-bcc", listed, true},
		{"-to:admin-bcc", bcc, false},
		{"rcpt:nobody", bcc, false},
	} {
		q, err := Parse(c.query, time.Now())
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got := q.Match(c.e); got != c.want {
			t.Errorf("%q on %s (content %v) = %v, want %v", c.query, c.e.ID, c.e.HasContent, got, c.want)
		}
	}
	q, _ := Parse("to:bcc", time.Now())
	if got := q.Highlights(FieldRcpt, "visible@x.test, admin-bcc@x.test"); len(got) != 1 || got[0] != (Range{22, 25}) {
		t.Fatalf("to: marks %v in the envelope recipients, want [{22 25}]", got)
	}
	q, _ = Parse("rcpt:visible", time.Now())
	if got := q.Highlights(FieldTo, "visible@x.test"); len(got) != 0 {
		t.Fatalf("rcpt: marks %v in To, want nothing", got)
	}
}
