package cmdutil_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"sandview/internal/cli/cmdutil"
	"sandview/internal/cli/email"
	"sandview/model"

	jsonv1 "github.com/go-json-experiment/json/v1"
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
		views := make([]email.View, n)
		var streamed bytes.Buffer
		a := cmdutil.NewJSONArray(&streamed)
		for k, e := range emails[:n] {
			views[k] = email.ViewOf(e)
			if err := a.Add(views[k]); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		var whole bytes.Buffer
		if err := cmdutil.PrintJSON(&whole, views); err != nil {
			t.Fatal(err)
		}
		if streamed.String() != whole.String() {
			t.Fatalf("%d emails: streamed\n%s\nwant\n%s", n, streamed.String(), whole.String())
		}
		var back []email.View
		if err := json.Unmarshal(streamed.Bytes(), &back); err != nil || len(back) != n {
			t.Fatalf("%d emails: %v", n, err)
		}
		if n == 2 && (bytes.ContainsRune(streamed.Bytes(), '\u202e') || bytes.ContainsRune(streamed.Bytes(), '\u009b') || back[1].Subject != emails[1].Subject) {
			t.Fatalf("controls not escaped or changed: %s", streamed.String())
		}
	}
}

// encodeJSON writes indented JSON in one pass: byte for byte what
// jsonv1's MarshalIndent (encoding/json's output) writes, empty and nil
// collections, nested objects and HTML characters included.
func TestEncodeJSONIsMarshalIndent(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.FixedZone("", 3600))
	full := model.Email{ID: "c", HasContent: true, From: "a@example.org", To: []string{"x@sandbox.test", "y@sandbox.test"},
		Subject: "<b>&</b> \u2028", ReceivedAt: at, Text: "line\nline\t\"q\"", HTML: "<p>x</p>", Links: []string{"https://example.org/?a=1&b=2"},
		Headers:     map[string]string{"date": "Sat, 21 Nov 2026 12:00:00 +0100", "cc": "c@x.test"},
		Attachments: []model.Attachment{{Filename: "f.txt", ContentType: "text/plain", Size: 3}},
		AuthResults: model.AuthResults{SPF: &model.SPFResult{Result: "pass", Domain: "example.org"}, DKIM: []model.DKIMResult{{Result: "fail"}}}}
	for _, v := range []any{
		email.ViewOf(model.Email{ID: "a", ReceivedAt: at}),
		email.ViewOf(full),
		email.ViewOf(model.Email{ID: "b", Problem: "decryption failed"}),
		[]email.View{},
		map[string]any{"empty": map[string]any{}, "list": []any{}, "nil": nil, "nested": []any{map[string]any{"k": []int{1, 2}}}},
		"plain string",
	} {
		for _, indent := range []struct{ prefix, indent string }{{"", "  "}, {"  ", "  "}, {"", ""}} {
			got, err := cmdutil.EncodeJSON(v, indent.prefix, indent.indent)
			if err != nil {
				t.Fatal(err)
			}
			want, err := jsonv1.MarshalIndent(v, indent.prefix, indent.indent)
			if indent.indent == "" {
				want, err = jsonv1.Marshal(v)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != cmdutil.EscapeUnsafeRunes(want) {
				t.Fatalf("prefix %q indent %q:\n%s\nwant\n%s", indent.prefix, indent.indent, got, want)
			}
		}
	}
}
