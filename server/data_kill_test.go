package server_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"sandview/model"
	"sandview/server/dnsresolve/dnstest"
	"sandview/server/servertest"
)

// TestDataKillDuringGroupCommit runs the real `sandview serve --data`
// and kills it (SIGKILL) three times in a row on the same directory, each
// time while 24 SMTP connections (pipelining) send to two inboxes, so
// that the kill falls while mails wait for their group commit (it checks
// that some did: their connection died between the final "." and the
// reply). After each restart, which replays the write-ahead log, every
// mail that was answered 250, in any round, is listed once.
func TestDataKillDuringGroupCommit(t *testing.T) {
	const (
		rounds = 3
		conns  = 24
	)
	bin := filepath.Join(t.TempDir(), "sandview")
	if out, err := exec.Command("go", "build", "-o", bin, "sandview").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(t.TempDir(), "data")
	srv := startKillable(t, bin, data)
	var inboxes []string
	for range 2 {
		var in model.Inbox
		srv.call(t, "POST", "/api/inboxes", map[string]any{"encryption": "plain", "emailAuth": false}, &in)
		inboxes = append(inboxes, in.EmailAddress)
	}
	acked := map[string]bool{} // subjects answered 250
	waiting := 0               // mails whose connection died awaiting the reply
	for round := range rounds {
		got, inFlight := sendUntilKilled(t, srv, inboxes, conns, round)
		for subject := range got {
			acked[subject] = true
		}
		waiting += inFlight
		srv = startKillable(t, bin, data)
		listed := map[string]int{}
		for _, address := range inboxes {
			for _, subject := range srv.subjects(t, address) {
				listed[subject]++
			}
		}
		for subject := range acked {
			if listed[subject] != 1 {
				t.Errorf("round %d: mail %s, answered 250, listed %d times after the restart", round, subject, listed[subject])
			}
		}
		t.Logf("round %d: %d answered 250 so far, %d listed, %d awaiting their reply at the kill", round, len(acked), len(listed), inFlight)
	}
	if waiting == 0 {
		t.Fatal("no kill fell while a mail awaited its group commit")
	}
}

// killable is a `sandview serve` process.
type killable struct {
	cmd        *exec.Cmd
	http, smtp string
}

// startKillable runs `sandview serve --data data` on random loopback
// ports, its checks asking a DNS server on loopback that knows no name,
// and reads its addresses from its banner.
func startKillable(t *testing.T, bin, data string) *killable {
	t.Helper()
	dns := dnstest.Start(t, dnstest.Options{})
	cmd := exec.Command(bin, "serve", "--data", data, "--home", t.TempDir(), "--http", "127.0.0.1:0",
		"--smtp", "127.0.0.1:0", "--api-key", "kill-key", "--log-level", "error", "--dns", dns.Addr)
	b := servertest.StartProcess(t, cmd)
	k := &killable{cmd: cmd, http: b.API, smtp: b.SMTP}
	return k
}

// call sends an API request and decodes the answer into out.
func (k *killable) call(t *testing.T, method, path string, body, out any) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, k.http+path, strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", "kill-key")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, msg)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// subjects lists the subjects of an inbox's mails.
func (k *killable) subjects(t *testing.T, address string) []string {
	t.Helper()
	var records []model.EmailRecord
	k.call(t, "GET", "/api/inboxes/"+address+"/emails", nil, &records)
	out := make([]string, 0, len(records))
	for _, rec := range records {
		var meta model.EmailMetadata
		raw, err := base64.StdEncoding.DecodeString(rec.Metadata)
		if err != nil || json.Unmarshal(raw, &meta) != nil {
			t.Fatalf("metadata of %s: %q", rec.ID, rec.Metadata)
		}
		out = append(out, meta.Subject)
	}
	return out
}

// sendUntilKilled sends mails on conns connections, to the inboxes in
// turn, and kills the server (SIGKILL) once 300 have been answered 250
// while the others go on. It returns the subjects answered 250 and how
// many mails awaited their reply when their connection died.
func sendUntilKilled(t *testing.T, k *killable, inboxes []string, conns, round int) (acked map[string]bool, waiting int) {
	t.Helper()
	const killAt = 300
	var mu sync.Mutex
	acked = map[string]bool{}
	var n250, inFlight atomic.Int64
	var kill sync.Once
	var wg sync.WaitGroup
	for c := range conns {
		wg.Go(func() {
			client, err := dialPipe(k.smtp)
			if err != nil {
				return
			}
			defer client.Close()
			for i := 0; ; i++ {
				to := inboxes[(c+i)%len(inboxes)]
				subject := fmt.Sprintf("kill-%d-%d-%d", round, c, i)
				msg := fmt.Sprintf("From: sender@example.org\r\nTo: %s\r\nSubject: %s\r\n\r\nbody of %s\r\n", to, subject, subject)
				dotSent, err := client.sendTracked("sender@example.org", to, []byte(msg))
				if err != nil {
					if dotSent {
						inFlight.Add(1)
					}
					return // the server died under this connection
				}
				mu.Lock()
				acked[subject] = true
				mu.Unlock()
				if n250.Add(1) == killAt {
					kill.Do(func() { _ = k.cmd.Process.Kill() })
				}
			}
		})
	}
	wg.Wait()
	_ = k.cmd.Wait()
	if n250.Load() < killAt {
		t.Fatalf("round %d: %d mails answered 250, the server died before the kill", round, n250.Load())
	}
	return acked, int(inFlight.Load())
}

// sendTracked is send that also says whether the message's final "."
// went out (the mail then awaits its commit).
func (c *pipeClient) sendTracked(from, to string, msg []byte) (dotSent bool, err error) {
	w := c.text.W
	fmt.Fprintf(w, "MAIL FROM:<%s>\r\nRCPT TO:<%s>\r\nDATA\r\n", from, to)
	if err := w.Flush(); err != nil {
		return false, err
	}
	for _, code := range []int{250, 250, 354} {
		if _, _, err := c.text.ReadResponse(code); err != nil {
			return false, err
		}
	}
	dw := c.text.DotWriter()
	if _, err := dw.Write(msg); err != nil {
		return false, err
	}
	if err := dw.Close(); err != nil {
		return false, err
	}
	_, _, err = c.text.ReadResponse(250)
	return true, err
}
