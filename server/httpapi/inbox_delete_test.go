package httpapi_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"sandview/model"
	"sandview/server/servertest"
)

// TestDeletingAnInboxDeletesEveryEmail: deleting an inbox that holds
// several emails announces email.deleted (manual) for each of them (the
// storage limits' counters are tested in server/store/storetest).
func TestDeletingAnInboxDeletesEveryEmail(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	doomed := a.CreatePlain(nil)
	for _, subject := range []string{"one", "two", "three"} {
		servertest.MustSend(t, srv, doomed.EmailAddress, servertest.SimpleMessage(doomed.EmailAddress, subject))
	}
	var want []string
	for _, r := range a.Emails(doomed.EmailAddress, false) {
		want = append(want, r.ID)
	}
	events, cancel := srv.Events().Subscribe(64)
	defer cancel()
	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+doomed.EmailAddress, nil, nil)
	var got []string
	timeout := time.After(10 * time.Second)
	for len(got) < len(want) {
		select {
		case ev := <-events:
			if ev.Type == model.EventEmailDeleted && ev.Reason == model.DeleteReasonManual {
				got = append(got, ev.EmailID)
			}
		case <-timeout:
			t.Fatalf("email.deleted for %v, want %v", got, want)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("email.deleted for %v, want %v", got, want)
	}
}
