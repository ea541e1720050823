package email

import (
	"testing"

	"sandview/model"
)

// TestToCellKeepsTheEnvelopeLabel: `email list` cuts a long envelope
// recipient, not its label, to fit the TO column.
func TestToCellKeepsTheEnvelopeLabel(t *testing.T) {
	long := model.Email{To: []string{}, Envelope: &model.Envelope{To: []string{"a-very-long-recipient-address@example.com"}}}
	if got := toCell(long, 32); got != "a-very-long-recipien… (envelope)" {
		t.Fatalf("toCell = %q", got)
	}
	if got := toCell(model.Email{To: []string{"a@x.test"}}, 32); got != "a@x.test" {
		t.Fatalf("toCell = %q", got)
	}
}
