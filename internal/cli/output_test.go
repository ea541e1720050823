package cli

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"sandview/model"
)

// A list printed one element at a time is byte for byte the list printed
// at once, and control characters come out escaped.
func TestJSONArrayMatchesPrintJSON(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	emails := []model.Email{
		{ID: "a", Subject: "plain", ReceivedAt: at, To: []string{"x@sandbox.test"}},
		{ID: "b", Subject: "bidi \u202e and C1 \u009b <b>&", ReceivedAt: at.Add(time.Second),
			Attachments: []model.Attachment{{Filename: "f.txt", ContentType: "text/plain", Size: 3}}},
	}
	for n := 0; n <= len(emails); n++ {
		views := make([]emailView, n)
		var streamed bytes.Buffer
		a := &jsonArray{w: &streamed}
		for k, e := range emails[:n] {
			views[k] = emailViewOf(e)
			if err := a.add(views[k]); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.close(); err != nil {
			t.Fatal(err)
		}
		var whole bytes.Buffer
		if err := printJSON(&whole, views); err != nil {
			t.Fatal(err)
		}
		if streamed.String() != whole.String() {
			t.Fatalf("%d emails: streamed\n%s\nwant\n%s", n, streamed.String(), whole.String())
		}
		var back []emailView
		if err := json.Unmarshal(streamed.Bytes(), &back); err != nil || len(back) != n {
			t.Fatalf("%d emails: %v", n, err)
		}
		if n == 2 && (bytes.ContainsRune(streamed.Bytes(), '\u202e') || bytes.ContainsRune(streamed.Bytes(), '\u009b') || back[1].Subject != emails[1].Subject) {
			t.Fatalf("controls not escaped or changed: %s", streamed.String())
		}
	}
}
