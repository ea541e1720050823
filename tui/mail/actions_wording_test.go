package mail

import "testing"

// TestDeleteInboxWording: the confirmation counts the mail it takes with
// the inbox in words that agree with the count.
func TestDeleteInboxWording(t *testing.T) {
	for n, want := range map[int]string{0: "", 1: " and its 1 email", 3: " and all its 3 emails"} {
		if got := inboxMailWords(n); got != want {
			t.Errorf("%d emails: %q, want %q", n, got, want)
		}
	}
}
