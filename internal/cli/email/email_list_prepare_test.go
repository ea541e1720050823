package email

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"sandview/model"
)

// An email prepared on a worker and written in order prints exactly as
// add prints it, in JSON and in a table: non-ASCII text kept as it is,
// characters a terminal acts on escaped, the open failure passed on.
func TestPreparedEmailPrintsAsAdd(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	emails := []model.Email{
		{ID: "a", Subject: "Grüße aus Köln — 東京", ReceivedAt: at, To: []string{"x@sandbox.test"}, Text: "plain ascii"},
		{ID: "b", Subject: "bidi \u202e C1 \u009b <b>&", ReceivedAt: at.Add(time.Second), Problem: "decryption failed"},
	}
	openErr := errors.New("email b: decryption failed")
	for _, asJSON := range []bool{true, false} {
		var added, written bytes.Buffer
		byAdd, byWrite := newEmailList(&added, asJSON), newEmailList(&written, asJSON)
		for k, e := range emails {
			if err := byAdd.add(e); err != nil {
				t.Fatal(err)
			}
			var failure error
			if k == 1 {
				failure = openErr
			}
			p := byWrite.prepare(e, failure)
			if p.openErr != failure {
				t.Fatalf("open error %v, want %v", p.openErr, failure)
			}
			if err := byWrite.write(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := byAdd.close(); err != nil {
			t.Fatal(err)
		}
		if err := byWrite.close(); err != nil {
			t.Fatal(err)
		}
		if added.String() != written.String() {
			t.Fatalf("json %v: prepared\n%s\nwant\n%s", asJSON, written.String(), added.String())
		}
		if asJSON {
			out := written.String()
			if !strings.Contains(out, "Grüße aus Köln — 東京") || !strings.Contains(out, `bidi \u202e C1 \u009b \u003cb\u003e\u0026`) {
				t.Fatalf("text not kept or controls not escaped:\n%s", out)
			}
		}
	}
}
