package cli

import (
	"encoding/binary"
	"os"
	"path/filepath"
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

	want := burstAndKill(t, a, inbox.EmailAddress, 4, 40, 60)
	_ = a.cmd.Wait()
	// The kill came before the checkpoint: the log holds mail (its first
	// record, after the 16-byte header, starts with its non-zero length).
	wal, err := os.ReadFile(filepath.Join(data, "sandview.db.wal"))
	if err != nil || len(wal) < 20 || binary.LittleEndian.Uint32(wal[16:]) == 0 {
		t.Fatalf("no record in the write-ahead log at the kill (%d bytes, %v)", len(wal), err)
	}

	b := startServe(t, "--data", data)
	stored := map[string]bool{}
	for _, subject := range listedSubjects(t, b, inbox.EmailAddress) {
		stored[subject] = true
	}
	missing := 0
	for subject := range want {
		if !stored[subject] {
			missing++
			t.Errorf("acknowledged mail %s lost", subject)
		}
	}
	t.Logf("crash: %d answered 250, %d listed after the restart, %d lost", len(want), len(stored), missing)
}
