package cli

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"sandview/client/smtpsend"
	"sandview/client/webhookrecv"
	"sandview/model"
	"sandview/server/servertest"
)

// replica is a `sandview serve` process (a replica on a shared store,
// or a server on its own data directory).
type replica struct {
	cmd        *exec.Cmd
	http, smtp string
}

const replicaKey = "replica-test-key"

// startReplica runs `sandview serve` on the store and waits for its
// banner.
func startReplica(t *testing.T, storeURL string) *replica {
	t.Helper()
	return startServe(t, "--store", storeURL)
}

// startServe runs `sandview serve` with the storage flags given and waits
// for its banner.
func startServe(t *testing.T, storage ...string) *replica {
	t.Helper()
	args := append([]string{"serve"}, storage...)
	args = append(args, "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0",
		"--api-key", replicaKey, "--log-level", "error", "--home", t.TempDir())
	cmd := exec.Command(builtBinary, args...)
	cmd.Env = append(os.Environ(), "SVC_WEBHOOK_ALLOW_HTTP=true", "SVC_WEBHOOK_ALLOW_PRIVATE=true", "SVC_WEBHOOK_TIMEOUT=1000")
	b := servertest.StartProcess(t, cmd)
	r := &replica{cmd: cmd, http: b.API, smtp: b.SMTP}
	return r
}

// call sends an API request to a replica and decodes its answer.
func (r *replica) call(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var reader io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		reader = strings.NewReader(string(data))
	}
	req, err := http.NewRequest(method, r.http+path, reader)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", replicaKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReplicaCrashLosesNoMail kills one of two replicas (SIGKILL) during
// an 8-connection SMTP burst: every mail that got its 250 is stored,
// appears once on the other replica's stream, and gets its webhook
// delivery (repeated only when it was in flight at the crash).
func TestReplicaCrashLosesNoMail(t *testing.T) {
	storeURL := pg.NewDatabase(t)
	a := startReplica(t, storeURL)
	b := startReplica(t, storeURL)

	var inbox model.Inbox
	b.call(t, "POST", "/api/inboxes", map[string]any{"encryption": "plain", "emailAuth": false}, &inbox)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	recv, err := webhookrecv.Listen(ctx, "127.0.0.1:0", webhookrecv.Options{Buffer: 10000})
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	var hook model.Webhook
	b.call(t, "POST", "/api/webhooks", model.CreateWebhookRequest{URL: recv.URL(), Events: []string{model.EventEmailReceived}}, &hook)

	streamed := make(chan string, 10000)
	openReplicaStream(t, ctx, b, inbox.InboxHash, streamed)

	want := burstAndKill(t, a, inbox.EmailAddress, 8, 60, 150)

	// Stored: B lists every accepted mail.
	subjectOf := listedSubjects(t, b, inbox.EmailAddress)
	stored := 0
	for _, subject := range subjectOf {
		if want[subject] {
			stored++
		}
	}
	if stored != len(want) {
		t.Fatalf("%d of %d accepted mails stored", stored, len(want))
	}

	// Streamed once on B, and delivered to the webhook.
	seen := map[string]int{}
	deliveries := map[string]int{}
	deadline := time.After(30 * time.Second)
	complete := func() bool {
		for id, subject := range subjectOf {
			if want[subject] && (seen[id] == 0 || deliveries[id] == 0) {
				return false
			}
		}
		return true
	}
	for !complete() {
		select {
		case id := <-streamed:
			seen[id]++
		case d := <-recv.Deliveries():
			var ev struct {
				Data model.EmailReceivedData `json:"data"`
			}
			if err := json.Unmarshal(d.Body, &ev); err != nil {
				t.Fatal(err)
			}
			deliveries[strings.TrimPrefix(ev.Data.ID, "msg_")]++
		case <-deadline:
			t.Fatalf("after 30 s: %d streamed, %d delivered of %d accepted", len(seen), len(deliveries), len(want))
		}
	}
	duplicates := 0
	for id, n := range seen {
		if n > 1 {
			t.Errorf("email %s streamed %d times", id, n)
		}
	}
	for _, n := range deliveries {
		duplicates += n - 1
	}
	t.Logf("crash: %d answered 250, %d stored (of %d listed), %d streamed on the survivor, %d webhook deliveries, %d repeated",
		len(want), stored, len(subjectOf), len(seen), len(deliveries)+duplicates, duplicates)
}

// openReplicaStream sends the email ids of a replica's event stream to out.
func openReplicaStream(t *testing.T, ctx context.Context, r *replica, hash string, out chan<- string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", r.http+"/api/events?inboxes="+hash, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", replicaKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("open stream: %v", err)
	}
	go func() {
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			data, ok := strings.CutPrefix(lines.Text(), "data:")
			if !ok {
				continue
			}
			var ev model.StreamEvent
			if json.Unmarshal([]byte(strings.TrimSpace(data)), &ev) == nil && ev.IsNotification() {
				out <- ev.EmailID
			}
		}
	}()
}

// burstAndKill sends perConn mails on each of conns SMTP connections to
// the server a and kills it (SIGKILL) once killAfter of them have had
// their 250; it returns the subjects of the mails answered 250.
func burstAndKill(t *testing.T, a *replica, to string, conns, perConn int, killAfter int64) map[string]bool {
	t.Helper()
	var accepted sync.Map // subject -> true, for each 250
	var sent, ok250 atomic.Int64
	killed := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for c := range conns {
		wg.Go(func() {
			client, err := smtp.Dial(a.smtp)
			if err != nil {
				return
			}
			defer client.Close()
			for i := range perConn {
				subject := fmt.Sprintf("crash-%d-%d", c, i)
				sent.Add(1)
				msg := fmt.Sprintf("From: sender@example.org\r\nTo: %s\r\nSubject: %s\r\n\r\nbody of %s\r\n", to, subject, subject)
				if err := smtpsend.SendOn(client, "bench@example.org", []string{to}, []byte(msg)); err != nil {
					return // the server died under this connection
				}
				accepted.Store(subject, true)
				if ok250.Add(1) == killAfter {
					once.Do(func() {
						_ = a.cmd.Process.Kill()
						close(killed)
					})
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatalf("the burst ended (%d sent, %d accepted) before the kill", sent.Load(), ok250.Load())
	}
	want := map[string]bool{}
	accepted.Range(func(k, _ any) bool { want[k.(string)] = true; return true })
	return want
}

// listedSubjects lists the inbox on the server and returns each mail's
// subject by id.
func listedSubjects(t *testing.T, srv *replica, address string) map[string]string {
	t.Helper()
	var listed []model.EmailRecord
	srv.call(t, "GET", "/api/inboxes/"+address+"/emails", nil, &listed)
	subjectOf := map[string]string{}
	for _, rec := range listed {
		var meta model.EmailMetadata
		raw, err := base64.StdEncoding.DecodeString(rec.Metadata)
		if err != nil || json.Unmarshal(raw, &meta) != nil {
			t.Fatalf("metadata of %s: %q", rec.ID, rec.Metadata)
		}
		subjectOf[rec.ID] = meta.Subject
	}
	return subjectOf
}
