package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sandview/crypto"
	"sandview/model"
)

// withWorkers runs the test with GOMAXPROCS n, so that lists take the
// worker pool whatever the machine.
func withWorkers(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// listedEmail is what the tests' prepare step keeps of an email.
type listedEmail struct {
	id, subject, problem string
	err                  error
}

func keep(e model.Email, err error) listedEmail {
	return listedEmail{id: e.ID, subject: e.Subject, problem: e.Problem, err: err}
}

// Records come out in list order (not sorted: the body's), through a
// pool of four workers, and a record that fails in the middle (a bad
// signature, a plain copy next to a payload, a wrong shape) is in its
// place with its own problem and error, its neighbours untouched.
func TestListPipelineKeepsOrderAndPlacesFailures(t *testing.T) {
	withWorkers(t, 4)
	s := newSealedInbox(t)
	raw := s.records(t, 40)
	var rec model.EmailRecord
	if err := json.Unmarshal(raw[17], &rec); err != nil {
		t.Fatal(err)
	}
	sig := []byte(rec.EncryptedParsed.Sig)
	sig[10] = map[bool]byte{true: 'B', false: 'A'}[sig[10] == 'A']
	rec.EncryptedParsed.Sig = string(sig)
	raw[17], _ = json.Marshal(rec)
	if err := json.Unmarshal(raw[23], &rec); err != nil {
		t.Fatal(err)
	}
	rec.Parsed = base64.StdEncoding.EncodeToString([]byte(`{"text":"unsigned"}`)) // a downgrade next to the payload
	raw[23], _ = json.Marshal(rec)
	raw[29] = json.RawMessage(`{"id":"email-00029","encryptedMetadata":"not an object"}`)
	body, _ := json.Marshal(raw)

	var got []listedEmail
	err := openRecords(s.inbox, strings.NewReader(string(body)), func() {}, keep, func(l listedEmail) error {
		got = append(got, l)
		return nil
	})
	if err != nil || len(got) != len(raw) {
		t.Fatalf("%d emails, %v", len(got), err)
	}
	for k, l := range got {
		want := fmt.Sprintf("email-%05d", k)
		if l.id != want {
			t.Fatalf("position %d holds %s, want %s", k, l.id, want)
		}
		var decryption *DecryptionError
		switch k {
		case 17, 23:
			if l.problem != ProblemDecryptionFailed || !errors.As(l.err, &decryption) || decryption.EmailID != want || l.subject != fmt.Sprintf("Message %d", k) {
				t.Errorf("%s: problem %q, subject %q, error %v", want, l.problem, l.subject, l.err)
			}
		case 29:
			if l.problem != ProblemUnreadable || l.err == nil || !strings.Contains(l.err.Error(), "cannot be decoded") {
				t.Errorf("%s: problem %q, error %v", want, l.problem, l.err)
			}
		default:
			if l.problem != "" || l.err != nil || l.subject != fmt.Sprintf("Message %d", k) {
				t.Errorf("%s: problem %q, subject %q, error %v", want, l.problem, l.subject, l.err)
			}
		}
	}
}

// pipelineGoroutines counts the goroutines running openRecords' code.
func pipelineGoroutines(t *testing.T) int {
	t.Helper()
	var dump strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&dump, 2); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range strings.Split(dump.String(), "\n\n") {
		if strings.Contains(g, "openRecords") {
			n++
		}
	}
	return n
}

// When the consumer fails, the pipeline stops reading (stop ends the
// read that waits on a body that never ends), opens no more than what was
// in flight, and returns the consumer's error after its reader and
// workers have ended.
func TestListPipelineStopsWithTheConsumer(t *testing.T) {
	withWorkers(t, 4)
	s := newSealedInbox(t)
	raw := s.records(t, 100)
	pr, pw := io.Pipe()
	written := make(chan struct{})
	go func() {
		defer close(written)
		// Never closed by the writer: a body that waits for more.
		if _, err := io.WriteString(pw, "["); err != nil {
			return
		}
		for k, r := range raw {
			if k > 0 {
				r = append([]byte{','}, r...)
			}
			if _, err := pw.Write(r); err != nil {
				return
			}
		}
		<-t.Context().Done()
	}()
	var stopped atomic.Bool
	stop := func() {
		stopped.Store(true)
		pr.CloseWithError(errors.New("stopped"))
	}
	var prepared atomic.Int64
	prepare := func(e model.Email, err error) listedEmail {
		prepared.Add(1)
		return keep(e, err)
	}
	enough := errors.New("enough")
	yielded := 0
	err := openRecords(s.inbox, pr, stop, prepare, func(l listedEmail) error {
		if yielded++; yielded == 3 {
			return enough
		}
		return nil
	})
	if err != enough || yielded != 3 || !stopped.Load() {
		t.Fatalf("%d emails, error %v, stop called %v", yielded, err, stopped.Load())
	}
	if n := pipelineGoroutines(t); n != 0 {
		t.Fatalf("%d goroutines of the pipeline still run after it returned", n)
	}
	if n := prepared.Load(); n > 3+2*4+4 {
		t.Fatalf("%d records opened for a consumer that took 3 (window 8, 4 workers)", n)
	}
	<-written
}

// Over HTTP: a consumer that stops ends the request (the server sees it
// cancelled while its body still waits) and EachEmail returns its error
// with nothing of the list left running.
func TestEachEmailCancelsTheListWhenTheConsumerStops(t *testing.T) {
	withWorkers(t, 4)
	address := "plain@sandbox.test"
	hash := crypto.PlainInboxHash(address)
	var records []string
	for k := range 6 {
		meta, _ := json.Marshal(map[string]any{"id": fmt.Sprint("e", k), "from": "a@example.org", "to": []string{address}, "subject": fmt.Sprint("mail ", k)})
		records = append(records, fmt.Sprintf(`{"id":"e%d","inboxId":%q,"receivedAt":"2026-11-21T12:00:00.000Z","metadata":%q}`,
			k, hash, base64.StdEncoding.EncodeToString(meta)))
	}
	cancelled := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, "["+strings.Join(records, ","))
		http.NewResponseController(w).Flush()
		<-r.Context().Done() // the list never ends by itself
		close(cancelled)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, "k", WithRetries(0, 0), WithTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	in, err := c.ImportInboxData(ctx, model.ExportedInbox{
		Version: model.ExportVersion, EmailAddress: address, InboxHash: hash,
		ExpiresAt: "2099-01-01T00:00:00Z", ExportedAt: "2026-11-21T12:00:00Z",
	})
	if err != nil {
		t.Fatal(err)
	}
	enough := errors.New("enough")
	var subjects []string
	err = in.EachEmail(ctx, ListOptions{}, func(e model.Email, openErr error) error {
		subjects = append(subjects, e.Subject)
		if len(subjects) == 2 {
			return enough
		}
		return openErr
	})
	if err != enough || strings.Join(subjects, ",") != "mail 0,mail 1" {
		t.Fatalf("emails %q, error %v", subjects, err)
	}
	if n := pipelineGoroutines(t); n != 0 {
		t.Fatalf("%d goroutines of the pipeline still run after EachEmail returned", n)
	}
	select {
	case <-cancelled:
	case <-ctx.Done():
		t.Fatal("the server's request was not cancelled")
	}
}
