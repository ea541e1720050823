package model

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestSentDate(t *testing.T) {
	e := Email{Headers: map[string]string{"date": "Mon, 3 Mar 2025 10:00:00 +0100"}}
	sent, err := e.SentDate()
	if err != nil {
		t.Fatal(err)
	}
	if _, offset := sent.Zone(); offset != 3600 || !sent.Equal(time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("SentDate = %v: want 10:00 in the sender's +0100", sent)
	}
	// Python's msg_25: an obsolete zone comment after the offset.
	e.Headers = map[string]string{"Date": "Fri, 6 Apr 2001 09:23:06 -0800 (GMT-0800)"}
	if sent, err := e.SentDate(); err != nil || sent.Format(time.RFC1123Z) != "Fri, 06 Apr 2001 09:23:06 -0800" {
		t.Fatalf("SentDate = %v, %v", sent, err)
	}
	if _, err := (Email{}).SentDate(); !errors.Is(err, ErrNoDateHeader) || err.Error() != "no Date header" {
		t.Fatalf("no header: %v", err)
	}
	e.Headers = map[string]string{"date": "yesterday-ish"}
	var bad *DateHeaderError
	if _, err := e.SentDate(); !errors.As(err, &bad) || err.Error() != "unparsable Date header: yesterday-ish" {
		t.Fatalf("bad header: %v", err)
	}
}

func TestCc(t *testing.T) {
	for _, tc := range []struct{ header string }{{"cc"}, {"Cc"}} {
		// A decoded name with a comma of its own, as Python writes it.
		e := Email{Headers: map[string]string{tc.header: "Café, Team <team@example.net>, cc0@example.net,\n \"Dana\" <dana@example.org>"}}
		want := []string{`"Café, Team" <team@example.net>`, "cc0@example.net", `"Dana" <dana@example.org>`}
		if got := e.Cc(); !reflect.DeepEqual(got, want) {
			t.Errorf("Cc = %q, want %q", got, want)
		}
	}
	if got := (Email{}).Cc(); got != nil {
		t.Errorf("no Cc header: %q", got)
	}
}

func TestStripMboxFrom(t *testing.T) {
	for in, want := range map[string]string{
		"From foo@bar  Mon Mar  3 10:00:00 2025\nSubject: x\n\nbody": "Subject: x\n\nbody",
		"From: a@example.org\r\n\r\nbody":                            "From: a@example.org\r\n\r\nbody",
		"Subject: From here\n\nFrom the body":                        "Subject: From here\n\nFrom the body",
		"From : obsolete@example.org\n\nbody":                        "From : obsolete@example.org\n\nbody",
	} {
		if got := string(StripMboxFrom([]byte(in))); got != want {
			t.Errorf("StripMboxFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAttachmentName(t *testing.T) {
	for _, tc := range []struct{ filename, contentType, want string }{
		{"", "text/calendar; method=REQUEST; charset=UTF-8", "invite.ics"},
		{"", "text/calendar", "calendar.ics"},
		{" ", "application/pdf", "attachment.pdf"},
		{"", "message/rfc822", "message.eml"},
		{"", "application/x-unknown", "attachment"},
		{"agenda.ics", "text/calendar", "agenda.ics"},
	} {
		if got := (Attachment{Filename: tc.filename, ContentType: tc.contentType}).Name(); got != tc.want {
			t.Errorf("Name of %q %q = %q, want %q", tc.filename, tc.contentType, got, tc.want)
		}
	}
}

func TestPlural(t *testing.T) {
	if Plural(1, "email", "emails") != "1 email" || Plural(0, "email", "emails") != "0 emails" || Plural(3, "inbox", "inboxes") != "3 inboxes" {
		t.Fatal("Plural")
	}
}

func TestDateText(t *testing.T) {
	e := Email{Headers: map[string]string{"Date": "Mon, 3 Mar 2025 10:00:00 +0100"}}
	if got := e.DateText(time.UTC); got != "Mon, 03 Mar 2025 10:00:00 +0100 (local: Mon, 03 Mar 2025 09:00:00 +0000)" {
		t.Errorf("DateText = %q", got)
	}
	if got := e.DateText(time.FixedZone("", 3600)); got != "Mon, 03 Mar 2025 10:00:00 +0100" {
		t.Errorf("DateText in the sender's zone = %q", got)
	}
	if got := (Email{}).DateText(time.UTC); got != "no Date header" {
		t.Errorf("DateText without a header = %q", got)
	}
}
