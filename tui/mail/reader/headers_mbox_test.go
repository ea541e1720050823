package reader

import (
	"os"
	"testing"

	"sandview/server/mailparse"
)

// TestHeadersTabAndServerReadMboxAlike: a message that starts with an mbox
// "From " line (Python's msg_25.txt) reads the same in the Headers tab as
// in the server's parse the list shows: the line is no header field, the
// subject is there in both.
func TestHeadersTabAndServerReadMboxAlike(t *testing.T) {
	raw, err := os.ReadFile("../../../server/mailparse/testdata/python_msg_25.txt")
	if err != nil {
		t.Fatal(err)
	}
	fields := parseHeaders(raw)
	if len(fields) == 0 || fields[0].name != "Received" {
		t.Fatalf("the Headers tab starts with %q", fields[:1])
	}
	var subject string
	for _, h := range fields {
		if h.name == "" {
			t.Errorf("a line read as no header field: %q", h.value)
		}
		if h.name == "Subject" {
			subject = h.value
		}
	}
	if parsed := mailparse.Parse(raw); subject == "" || parsed.Subject != subject {
		t.Fatalf("Headers tab subject %q, server's %q", subject, parsed.Subject)
	}
}
