package cli

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/smtp"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"sandview/model"
)

// TestDataCrashKeepsAcknowledgedMail kills (SIGKILL) a `sandview serve
// --data` process during a 4-connection SMTP burst, between the 250s and
// the next checkpoint of its write-ahead log (the log still holds the
// mail when it dies), and restarts it on the same directory: every mail
// that got its 250 is listed.
func TestDataCrashKeepsAcknowledgedMail(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	a := startServe(t, "--data", data)
	var inbox model.Inbox
	a.call(t, "POST", "/api/inboxes", map[string]any{"encryption": "plain", "emailAuth": false}, &inbox)

	const conns, perConn, killAfter = 4, 40, 60
	var accepted sync.Map // subject -> true, for each 250
	var ok250 atomic.Int64
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
				msg := fmt.Sprintf("From: sender@example.org\r\nTo: %s\r\nSubject: %s\r\n\r\nbody of %s\r\n", inbox.EmailAddress, subject, subject)
				if err := sendOn(client, inbox.EmailAddress, msg); err != nil {
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
		t.Fatalf("the burst ended (%d accepted) before the kill", ok250.Load())
	}
	_ = a.cmd.Wait()
	// The kill came before the checkpoint: the log holds mail (its first
	// record, after the 16-byte header, starts with its non-zero length).
	wal, err := os.ReadFile(filepath.Join(data, "sandview.db.wal"))
	if err != nil || len(wal) < 20 || binary.LittleEndian.Uint32(wal[16:]) == 0 {
		t.Fatalf("no record in the write-ahead log at the kill (%d bytes, %v)", len(wal), err)
	}

	b := startServe(t, "--data", data)
	var listed []model.EmailRecord
	b.call(t, "GET", "/api/inboxes/"+inbox.EmailAddress+"/emails", nil, &listed)
	stored := map[string]bool{}
	for _, rec := range listed {
		var meta model.EmailMetadata
		raw, err := base64.StdEncoding.DecodeString(rec.Metadata)
		if err != nil || json.Unmarshal(raw, &meta) != nil {
			t.Fatalf("metadata of %s: %q", rec.ID, rec.Metadata)
		}
		stored[meta.Subject] = true
	}
	missing := 0
	accepted.Range(func(k, _ any) bool {
		if !stored[k.(string)] {
			missing++
			t.Errorf("acknowledged mail %s lost", k)
		}
		return true
	})
	t.Logf("crash: %d answered 250, %d listed after the restart, %d lost", ok250.Load(), len(listed), missing)
}
