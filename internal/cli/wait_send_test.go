package cli

// Tests of `sandview wait` and `sandview send`: the real binary, built into
// a temporary directory, against the embedded server.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCLIWaitAndSend(t *testing.T) {
	h := newCLI(t)
	srv := h.srv
	// One inbox in the keystore the CLI reads.
	address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
	start, finish, run := h.start, h.finish, h.run

	attachment := filepath.Join(t.TempDir(), "report.csv")
	if err := os.WriteFile(attachment, []byte("a,b\n1,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("wait then send", func(t *testing.T) {
		waitCmd, waitOut, waitErr := start("wait", "--inbox", address, "--subject", "^Hello", "--from", `bob@example\.org`, "--timeout", "30s", "--json")
		sent := run("send", "--to", address, "--from", "bob@example.org", "--subject", "Hello CLI",
			"--text", "plain body", "--html", "<p>html body</p>", "--attach", attachment, "--smtp", srv.SMTPAddr())
		if sent.code != 0 || !strings.Contains(sent.stdout, "sent to "+address) {
			t.Fatalf("send: exit %d, %q %q", sent.code, sent.stdout, sent.stderr)
		}
		waited := finish(waitCmd, waitOut, waitErr)
		if waited.code != 0 {
			t.Fatalf("wait: exit %d, %s", waited.code, waited.stderr)
		}
		var all []emailView
		if err := json.Unmarshal([]byte(waited.stdout), &all); err != nil || len(all) != 1 {
			t.Fatalf("wait --json printed %q (%v): want an array of one email, whatever --count is", waited.stdout, err)
		}
		got := all[0]
		if got.Subject != "Hello CLI" || !strings.Contains(got.Text, "plain body") || !strings.Contains(got.HTML, "html body") ||
			len(got.Attachments) != 1 || got.Attachments[0].Filename != "report.csv" {
			t.Fatalf("waited email %+v", got)
		}
	})

	t.Run("count includes existing mail", func(t *testing.T) {
		waitCmd, waitOut, waitErr := start("wait", "--inbox", address, "--subject", "^Hello", "--count", "2", "--json")
		if sent := run("send", "--to", address, "--subject", "Hello again", "--smtp", srv.SMTPAddr()); sent.code != 0 {
			t.Fatalf("send: exit %d, %s", sent.code, sent.stderr)
		}
		waited := finish(waitCmd, waitOut, waitErr)
		var got []emailView
		if err := json.Unmarshal([]byte(waited.stdout), &got); waited.code != 0 || err != nil {
			t.Fatalf("wait --count 2: exit %d, %q, %v", waited.code, waited.stderr, err)
		}
		if len(got) != 2 || got[0].Subject != "Hello CLI" || got[1].Subject != "Hello again" {
			t.Fatalf("waited emails %+v", got)
		}
	})

	t.Run("new and since leave old mail out", func(t *testing.T) {
		if r := run("wait", "--inbox", address, "--subject", "^Hello", "--new", "--timeout", "0"); r.code != exitTimeout {
			t.Fatalf("--new with only old mail: exit %d, %q %q; want a timeout", r.code, r.stdout, r.stderr)
		}
		if r := run("wait", "--inbox", address, "--subject", "^Hello", "--since", time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "--timeout", "0"); r.code != exitTimeout {
			t.Fatalf("--since a later time: exit %d, %q", r.code, r.stderr)
		}
		if r := run("wait", "--inbox", address, "--subject", "^Hello", "--since", "1h", "--count", "2", "--timeout", "0", "--json"); r.code != 0 || len(decodeJSON[[]emailView](t, r)) != 2 {
			t.Fatalf("--since 1h: exit %d, %q %q; want both Hello mails", r.code, r.stdout, r.stderr)
		}
		finishWait := h.startWaiting("wait", "--inbox", address, "--subject", "^Hello", "--new", "--timeout", "30s", "--json")
		if sent := run("send", "--to", address, "--subject", "Hello new", "--smtp", srv.SMTPAddr()); sent.code != 0 {
			t.Fatalf("send: exit %d, %s", sent.code, sent.stderr)
		}
		waited := finishWait()
		var got []emailView
		if err := json.Unmarshal([]byte(waited.stdout), &got); waited.code != 0 || err != nil || len(got) != 1 || got[0].Subject != "Hello new" {
			t.Fatalf("wait --new: exit %d, %q %q (%v); want the new mail alone", waited.code, waited.stdout, waited.stderr, err)
		}
	})

	t.Run("timeout exits 3", func(t *testing.T) {
		began := time.Now()
		r := run("wait", "--inbox", address, "--subject", "never", "--timeout", "300ms")
		if r.code != exitTimeout || !strings.Contains(r.stderr, "timed out") || r.stdout != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if time.Since(began) < 300*time.Millisecond {
			t.Fatal("returned before the timeout")
		}
		r = run("wait", "--inbox", address, "--subject", "never", "--timeout", "0")
		if r.code != exitTimeout || !strings.Contains(r.stderr, "timed out") {
			t.Fatalf("--timeout 0: exit %d, %q", r.code, r.stderr)
		}
		r = run("wait", "--inbox", address, "--subject", "CLI$", "--timeout", "0")
		if r.code != 0 || !strings.Contains(r.stdout, "Hello CLI") {
			t.Fatalf("--timeout 0 with the mail there: exit %d, %q %q", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, args := range [][]string{
			{"send", "--subject", "no recipient"},
			{"send", "--to", "not an address", "--smtp", srv.SMTPAddr()},
			{"wait", "--subject", "(unclosed"},
			{"wait", "--count", "0"},
			{"wait", "--since", "yesterday"},
			{"wait", "--since", "-5m"},
		} {
			if r := run(args...); r.code != exitUsage || r.stderr == "" {
				t.Errorf("%v: exit %d, %q", args, r.code, r.stderr)
			}
		}
		if r := run("send", "--to", address, "--attach", filepath.Join(t.TempDir(), "missing"), "--smtp", srv.SMTPAddr()); r.code != exitFailure || !strings.Contains(r.stderr, "missing") {
			t.Errorf("missing attachment: exit %d, %q", r.code, r.stderr)
		}
	})
}
