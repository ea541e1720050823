package client_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/crypto"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server/servertest"
)

// EachEmail hands the emails on in the server's order (newest first), with
// content, and stops at the consumer's first error, returning it as is.
func TestEachEmailInOrderAndStopsOnTheConsumersError(t *testing.T) {
	srv := servertest.Start(t)
	c := newTestClient(t, srv.URL())
	ctx := clienttest.Ctx(t)
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionEncrypted})
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	for k := range n {
		if _, err := c.SendTestEmail(ctx, model.TestEmailRequest{To: in.Address(), Subject: fmt.Sprint("mail ", k), Text: "body"}); err != nil {
			t.Fatal(err)
		}
	}
	var subjects []string
	err = in.EachEmail(ctx, client.ListOptions{IncludeContent: true}, func(e model.Email, openErr error) error {
		if openErr != nil || !e.HasContent || e.Text != "body" {
			t.Errorf("%s: %+v, %v", e.ID, e, openErr)
		}
		subjects = append(subjects, e.Subject)
		return nil
	})
	if err != nil || len(subjects) != n {
		t.Fatalf("%d emails, %v", len(subjects), err)
	}
	for k, s := range subjects {
		if want := fmt.Sprint("mail ", n-1-k); s != want {
			t.Fatalf("email %d is %q, want %q (newest first)", k, s, want)
		}
	}

	stop := errors.New("enough")
	seen := 0
	err = in.EachEmail(ctx, client.ListOptions{}, func(model.Email, error) error {
		seen++
		if seen == 3 {
			return stop
		}
		return nil
	})
	if err != stop || seen != 3 {
		t.Fatalf("after the consumer's error: %d emails, %v", seen, err)
	}
}

// Options.Timeout bounds the waits for the list's body, not the time the
// consumer takes with each email.
func TestEachEmailSlowConsumerDoesNotTimeOut(t *testing.T) {
	srv := servertest.Start(t)
	c := newTestClient(t, srv.URL())
	ctx := clienttest.Ctx(t)
	seeded, err := c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionPlain})
	if err != nil {
		t.Fatal(err)
	}
	// Large enough that the list is still being read after the first
	// email was handed on.
	text := strings.Repeat("0123456789abcdef", 8<<10)
	const n = 16
	for range n {
		if _, err := c.SendTestEmail(ctx, model.TestEmailRequest{To: seeded.Address(), Subject: "big", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	// The listing client's timeout is ample for the server's answer, even
	// on a machine with a load of 30 (1.5 s was not), and shorter than the
	// consumer's pause.
	const timeout = 4 * time.Second
	short := newTestClient(t, srv.URL(), client.WithTimeout(timeout), client.WithRetries(0, 0))
	export, err := seeded.Export()
	if err != nil {
		t.Fatal(err)
	}
	in, err := short.ImportInboxData(ctx, export)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	err = in.EachEmail(ctx, client.ListOptions{IncludeContent: true}, func(e model.Email, openErr error) error {
		if got == 0 {
			time.Sleep(timeout + time.Second) // the slow consumer under test
		}
		got++
		return openErr
	})
	if err != nil || got != n {
		t.Fatalf("%d emails, %v", got, err)
	}
}

// A list whose body stalls or breaks off after the first record: that
// record is handed on, then the failure is returned with its class.
func TestEachEmailBodyStallsOrBreaksOff(t *testing.T) {
	address := "plain@sandbox.test"
	hash := crypto.PlainInboxHash(address)
	meta, _ := json.Marshal(map[string]any{"id": "e1", "from": "a@example.org", "to": []string{address}, "subject": "first"})
	record := fmt.Sprintf(`{"id":"e1","inboxId":%q,"receivedAt":"2026-11-21T12:00:00.000Z","metadata":%q}`,
		hash, base64.StdEncoding.EncodeToString(meta))
	for _, tt := range []struct {
		name  string
		after func(w http.ResponseWriter, r *http.Request) // once the first record is out
		check func(error) bool
	}{
		{"stall", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, func(err error) bool {
			var timeout *client.TimeoutError
			return errors.As(err, &timeout)
		}},
		{"break off", func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}, func(err error) bool {
			var network *client.NetworkError
			return errors.As(err, &network)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, "["+record+","+strings.Repeat(" ", 64<<10))
				http.NewResponseController(w).Flush()
				tt.after(w, r)
			}))
			t.Cleanup(srv.Close)
			c := newTestClient(t, srv.URL, client.WithTimeout(200*time.Millisecond), client.WithRetries(0, 0))
			in, err := c.ImportInboxData(clienttest.Ctx(t), model.ExportedInbox{
				Version: model.ExportVersion, EmailAddress: address, InboxHash: hash,
				ExpiresAt: "2099-01-01T00:00:00Z", ExportedAt: "2026-11-21T12:00:00Z",
			})
			if err != nil {
				t.Fatal(err)
			}
			var subjects []string
			err = in.EachEmail(clienttest.Ctx(t), client.ListOptions{}, func(e model.Email, openErr error) error {
				subjects = append(subjects, e.Subject)
				return openErr
			})
			if len(subjects) != 1 || subjects[0] != "first" || !tt.check(err) {
				t.Fatalf("emails %q, error %v", subjects, err)
			}
			if strings.Contains(err.Error(), "not a JSON array") {
				t.Fatalf("a connection failure reads as bad JSON: %v", err)
			}
		})
	}
}
