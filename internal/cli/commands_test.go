package cli

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
	"sandview/server/webhook"
)

func decodeJSON[T any](t *testing.T, r cliRun) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("output %q is not the JSON expected: %v", r.stdout, err)
	}
	return v
}

// TestCLIInboxAndEmailCommands walks the inbox and email commands against a
// real server: create, list, send, list/show/raw/delete emails, export,
// import into another state directory, delete.
func TestCLIInboxAndEmailCommands(t *testing.T) {
	h := newCLI(t)
	enc := decodeJSON[inboxView](t, h.must("inbox", "create", "--json"))
	plain := decodeJSON[inboxView](t, h.must("inbox", "create", "--plain", "--no-auth", "--ttl", "2h", "--json"))
	if !enc.Encrypted || !strings.Contains(enc.EmailAddress, "@") || enc.InboxHash == "" {
		t.Fatalf("default inbox %+v: want an encrypted inbox with an address and hash", enc)
	}
	if plain.Encrypted || plain.EmailAuth == nil || *plain.EmailAuth || enc.EmailAuth == nil || !*enc.EmailAuth || time.Until(plain.ExpiresAt) < 119*time.Minute || time.Until(plain.ExpiresAt) > 2*time.Hour {
		t.Fatalf("plain inbox %+v: want plain, no auth, 2h", plain)
	}
	if listed := decodeJSON[[]inboxView](t, h.must("inbox", "list", "--json")); len(listed) != 2 {
		t.Fatalf("inbox list = %+v, want both inboxes", listed)
	}
	if r := h.run("email", "list"); r.code != exitUsage || !strings.Contains(r.stderr, "--inbox") {
		t.Fatalf("email list with two inboxes: exit %d, %q; want a usage error naming --inbox", r.code, r.stderr)
	}

	h.must("send", "--to", enc.EmailAddress, "--from", "ana@example.org", "--subject", "Grüße \x1b[31mred", "--text", "see https://example.org/x", "--smtp", h.srv.SMTPAddr())
	h.must("wait", "--inbox", enc.EmailAddress, "--subject", "Grüße", "--timeout", "20s")
	emails := decodeJSON[[]emailView](t, h.must("email", "list", "--inbox", enc.EmailAddress, "--json"))
	if len(emails) != 1 || emails[0].From != "ana@example.org" || len(emails[0].Links) != 1 || !emails[0].Validation.Passed && len(emails[0].Validation.Failures) == 0 && len(emails[0].Validation.Skipped) == 0 {
		t.Fatalf("email list = %+v", emails)
	}
	id := emails[0].ID
	text := h.must("email", "list", "--inbox", enc.EmailAddress).stdout
	if !strings.Contains(text, "Grüße") || strings.Contains(text, "\x1b") {
		t.Fatalf("email list text output %q: want the subject, without escape sequences", text)
	}
	shown := decodeJSON[emailView](t, h.must("email", "show", id, "--inbox", enc.EmailAddress, "--json"))
	if shown.ID != id || !strings.Contains(shown.Text, "https://example.org/x") {
		t.Fatalf("email show = %+v", shown)
	}
	if raw := h.must("email", "raw", id, "--inbox", enc.EmailAddress).stdout; !strings.Contains(raw, "From: ana@example.org") {
		t.Fatalf("email raw = %q, want the RFC 5322 source", raw)
	}

	exportFile := filepath.Join(t.TempDir(), "enc.json")
	h.must("inbox", "export", enc.EmailAddress, exportFile)
	if info, err := os.Stat(exportFile); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("export file: %v, mode %v; want 0600", err, info.Mode().Perm())
	}
	other := &cli{t: t, srv: h.srv, home: t.TempDir(), ctx: h.ctx}
	imported := decodeJSON[inboxView](t, other.must("inbox", "import", exportFile, "--json"))
	if imported.EmailAddress != enc.EmailAddress {
		t.Fatalf("imported %+v, want %s", imported, enc.EmailAddress)
	}
	if again := decodeJSON[[]emailView](t, other.must("email", "list", "--json")); len(again) != 1 || again[0].ID != id {
		t.Fatalf("the imported inbox lists %+v", again)
	}
	if r := other.run("inbox", "import", exportFile); r.code != exitOK || !strings.Contains(r.stderr, "in the keystore already") {
		t.Fatalf("importing the same inbox twice: exit %d, %q; want a no-op", r.code, r.stderr)
	}

	h.must("email", "delete", id, "--inbox", enc.EmailAddress)
	if r := h.run("email", "show", id, "--inbox", enc.EmailAddress); r.code != exitFailure || !strings.Contains(r.stderr, "not found") {
		t.Fatalf("showing a deleted email: exit %d, %q", r.code, r.stderr)
	}
	h.must("inbox", "delete", plain.EmailAddress)
	if listed := decodeJSON[[]inboxView](t, h.must("inbox", "list", "--json")); len(listed) != 1 {
		t.Fatalf("after delete, inbox list = %+v", listed)
	}
	if r := h.must("inbox", "delete", "--all"); !strings.Contains(r.stdout, "deleted") {
		t.Fatalf("delete --all printed %q", r.stdout)
	}
	if r := h.must("inbox", "list"); !strings.Contains(r.stdout, "no inboxes") {
		t.Fatalf("after delete --all: %q", r.stdout)
	}
}

// TestCLIErrorsSayWhatToDo: every failure is one line on stderr and a
// non-zero exit.
func TestCLIErrorsSayWhatToDo(t *testing.T) {
	h := newCLI(t)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + dead.Addr().String()
	dead.Close()

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no server configured", []string{"--home", t.TempDir(), "inbox", "list"}, exitFailure, "no server configured"},
		{"unreachable server", []string{"--home", h.home, "--url", deadURL, "--api-key", "k", "inbox", "create"}, exitFailure, "cannot reach"},
		{"wrong API key", []string{"--home", h.home, "--url", h.srv.URL(), "--api-key", "wrong", "inbox", "create"}, exitKeyRefused, "the server refused the API key (401): pass the right one with --api-key"},
		{"wrong API key, nothing else asked", []string{"--home", t.TempDir(), "--url", h.srv.URL(), "--api-key", "wrong", "email", "list"}, exitKeyRefused, "refused the API key"},
		{"no local server", []string{"--home", t.TempDir(), "email", "list", "--local"}, exitUsage, "no local sandview server is running"},
		{"--local with --url", []string{"--home", h.home, "--url", h.srv.URL(), "email", "list", "--local"}, exitUsage, "leave out --url"},
		{"unknown inbox", []string{"--home", h.home, "--url", h.srv.URL(), "--api-key", servertest.APIKey, "email", "list", "--inbox", "nobody@sandbox.test"}, exitFailure, "neither in the keystore nor on the server"},
		{"bad ttl", []string{"--home", h.home, "--url", h.srv.URL(), "--api-key", servertest.APIKey, "inbox", "create", "--ttl", "soon"}, exitUsage, "--ttl"},
		{"unknown flag", []string{"inbox", "list", "--bogus"}, exitUsage, "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.finish(h.startRaw(tt.args...))
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) || len(lines) != 1 {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line mentioning %q", r.code, r.stderr, tt.code, tt.want)
			}
		})
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"version": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := h.run("inbox", "import", bad); r.code != exitFailure || !strings.Contains(r.stderr, "ERROR_UNSUPPORTED_VERSION") {
		t.Fatalf("bad import: exit %d, %q", r.code, r.stderr)
	}
}

// TestCLIWebhookCommands drives every webhook subcommand, including a live
// `webhook listen` that receives a signed delivery for a mail.
func TestCLIWebhookCommands(t *testing.T) {
	h := newCLI(t, func(cfg *server.Config) {
		w := webhook.DefaultConfig()
		w.AllowLoopbackHTTP = true
		cfg.Webhooks = &w
	})
	inbox := decodeJSON[inboxView](t, h.must("inbox", "create", "--plain", "--json"))

	spot, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listenAddr := spot.Addr().String()
	spot.Close()
	hookURL := "http://" + listenAddr + "/hook"

	created := decodeJSON[model.Webhook](t, h.must("webhook", "create", "--endpoint", hookURL, "--event", model.EventEmailReceived,
		"--filter", "subject:contains:invoice", "--description", "cli test", "--json"))
	if !strings.HasPrefix(created.ID, "whk_") || !strings.HasPrefix(created.Secret, "whsec_") || created.Filter == nil {
		t.Fatalf("created %+v", created)
	}
	if list := decodeJSON[model.WebhookList](t, h.must("webhook", "list", "--json")); list.Total != 1 || list.Webhooks[0].Secret != "" {
		t.Fatalf("list = %+v, want one webhook without its secret", list)
	}
	if shown := decodeJSON[model.Webhook](t, h.must("webhook", "show", created.ID, "--json")); shown.Secret != created.Secret || shown.Stats == nil {
		t.Fatalf("show = %+v, want the secret and stats", shown)
	}
	if r := h.run("webhook", "create", "--endpoint", hookURL, "--filter", "subject:regex:(", "--json"); r.code != exitFailure || !strings.Contains(r.stderr, "422") && !strings.Contains(strings.ToLower(r.stderr), "regular expression") {
		t.Fatalf("bad regex: exit %d, %q", r.code, r.stderr)
	}

	listen := exec.CommandContext(h.ctx, builtBinary, "webhook", "listen", "--addr", listenAddr, "--secret", created.Secret, "--json")
	out, err := listen.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := listen.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = listen.Process.Kill(); _ = listen.Wait() })
	deliveries := make(chan string, 4)
	go func() {
		scanner := bufio.NewScanner(out)
		scanner.Buffer(make([]byte, 1<<20), 1<<20)
		for scanner.Scan() {
			deliveries <- scanner.Text()
		}
		close(deliveries)
	}()
	var tested model.TestWebhookResponse
	for deadline := time.Now().Add(10 * time.Second); !tested.Success && time.Now().Before(deadline); {
		tested = decodeJSON[model.TestWebhookResponse](t, h.run("webhook", "test", created.ID, "--json"))
	}
	if !tested.Success || tested.StatusCode != 200 {
		t.Fatalf("webhook test = %+v", tested)
	}
	h.must("send", "--to", inbox.EmailAddress, "--subject", "Your invoice", "--smtp", h.srv.SMTPAddr())
	var seen []string
	timeout := time.After(20 * time.Second)
	for found := false; !found; {
		select {
		case line, ok := <-deliveries:
			if !ok {
				t.Fatalf("webhook listen ended; it printed %q", seen)
			}
			seen = append(seen, line)
			if strings.Contains(line, model.EventEmailReceived) && strings.Contains(line, "Your invoice") {
				if !strings.Contains(line, `"signature":"valid"`) {
					t.Fatalf("delivery %s: want a valid signature", line)
				}
				found = true
			}
		case <-timeout:
			t.Fatalf("no email.received delivery printed within 20 s; got %q", seen)
		}
	}

	h.must("webhook", "update", created.ID, "--disable")
	if shown := decodeJSON[model.Webhook](t, h.must("webhook", "show", created.ID, "--json")); shown.Enabled {
		t.Fatal("webhook still enabled after update --disable")
	}
	rotated := decodeJSON[model.RotateSecretResponse](t, h.must("webhook", "rotate", created.ID, "--json"))
	if rotated.Secret == created.Secret || time.Until(rotated.PreviousSecretValidUntil) < 59*time.Minute {
		t.Fatalf("rotate = %+v", rotated)
	}
	if m := decodeJSON[model.WebhookMetrics](t, h.must("webhook", "metrics", "--json")); m.Webhooks.Total != 1 || m.Deliveries.Total < 1 {
		t.Fatalf("metrics = %+v", m)
	}
	if tpl := decodeJSON[model.WebhookTemplates](t, h.must("webhook", "templates", "--json")); len(tpl.Templates) != 7 {
		t.Fatalf("templates = %+v", tpl)
	}
	h.must("webhook", "delete", created.ID)
	if r := h.run("webhook", "show", created.ID); r.code == 0 {
		t.Fatal("a deleted webhook is still shown")
	}
}
