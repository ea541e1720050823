package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sandview/server/servertest"
)

// watchedBuffer is a process's output that a test can wait on.
type watchedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func newWatchedBuffer() *watchedBuffer { return &watchedBuffer{changed: make(chan struct{})} }

func (b *watchedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.changed)
	b.changed = make(chan struct{})
	return b.buf.Write(p)
}

func (b *watchedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor returns once the output holds substr n times, or fails the test.
func (b *watchedBuffer) waitFor(ctx context.Context, t *testing.T, substr string, n int) {
	t.Helper()
	for {
		b.mu.Lock()
		count, changed := strings.Count(b.buf.String(), substr), b.changed
		b.mu.Unlock()
		if count >= n {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("no %d× %q in: %s", n, substr, b.String())
		}
	}
}

// mcpClient is the SDK's client on a real `sandview mcp` process.
type mcpClient struct {
	t       *testing.T
	session *mcp.ClientSession
	stderr  *watchedBuffer
	// wire is every byte of the protocol both ways.
	wire *servertest.SyncBuffer
	// said is the text of every result.
	said []string
}

// startMCP runs the binary with args (`mcp` and its flags), the server
// given by env as an agent's configuration gives it, and connects.
func startMCP(t *testing.T, ctx context.Context, env []string, args ...string) *mcpClient {
	t.Helper()
	cmd := exec.CommandContext(ctx, builtBinary, args...)
	cmd.Env = append(append(os.Environ(), "SERVICE_URL=", "SERVICE_API_KEY=", "SMTP_HOST=", "SMTP_PORT="), env...)
	c := &mcpClient{t: t, stderr: newWatchedBuffer(), wire: &servertest.SyncBuffer{}}
	cmd.Stderr = c.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "sandview-test", Version: "v0"}, nil)
	transport := &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: c.wire}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect to sandview mcp: %v (stderr: %s)", err, c.stderr.String())
	}
	c.session = session
	t.Cleanup(func() {
		if err := session.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("sandview mcp exited %d once its input closed; stderr: %s", code, c.stderr.String())
		}
	})
	return c
}

// call calls a tool and returns its result's text, failing the test on a
// protocol error or when the result's IsError is not wantError.
func (c *mcpClient) call(ctx context.Context, name string, args map[string]any, wantError bool) string {
	c.t.Helper()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s %v: %v", name, args, err)
	}
	var text []string
	for _, content := range res.Content {
		if tc, ok := content.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	said := strings.Join(text, "\n")
	c.said = append(c.said, said)
	if res.IsError != wantError {
		c.t.Fatalf("%s %v: IsError %t, want %t: %s", name, args, res.IsError, wantError, said)
	}
	return said
}

// callJSON calls a tool that must succeed and decodes its structured result.
func callJSON[T any](ctx context.Context, c *mcpClient, name string, args map[string]any) T {
	c.t.Helper()
	var out T
	said := c.call(ctx, name, args, false)
	if err := json.Unmarshal([]byte(said), &out); err != nil {
		c.t.Fatalf("%s: %v in %s", name, err, said)
	}
	return out
}

// TestMCPStdio: the SDK's client on a real `sandview mcp` process lists
// the tools with their schemas, creates an inbox (kept in the keystore,
// its key in no output), waits with extract for a mail sent during the
// call and gets its code, then reads and checks that mail; bad input is a
// tool error and the server goes on; the API key and the inbox's secret
// key appear in nothing the process said.
func TestMCPStdio(t *testing.T) {
	h := newCLI(t)
	ctx := h.ctx
	c := startMCP(t, ctx, []string{"SERVICE_URL=" + h.srv.URL(), "SERVICE_API_KEY=" + servertest.APIKey, "SANDVIEW_HOME=" + h.home}, "mcp")

	tools, err := c.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{}
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		schemas[tool.Name] = string(raw)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range schemas {
			yield(name)
		}
	})
	if want := []string{"check_email", "create_inbox", "extract", "read_email", "wait_for_email"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for name, want := range map[string][]string{
		"extract":        {`"required":["kind"]`, `"enum":["link","code","regex"]`, `"pattern"`, `"subject"`, `"new"`, `"id"`},
		"create_inbox":   {`"enum":["encrypted","plain"]`, `"ttl"`},
		"wait_for_email": {`"inbox"`, `"from"`, `"subject"`, `"to"`, `"since"`, `"timeout"`, `"count"`},
		"read_email":     {`"required":["id"]`},
		"check_email":    {`"required":["id"]`, `"links"`},
	} {
		for _, w := range want {
			if !strings.Contains(schemas[name], w) {
				t.Errorf("%s's input schema lacks %s: %s", name, w, schemas[name])
			}
		}
	}

	inbox := callJSON[mcpInbox](ctx, c, "create_inbox", map[string]any{"ttl": "2h", "encryption": "encrypted"})
	if !strings.Contains(inbox.Address, "@") || inbox.ExpiresAt.IsZero() {
		t.Fatalf("create_inbox: %+v", inbox)
	}
	// Kept in the keystore as `inbox create` keeps it: the CLI knows it.
	if list := h.must("inbox", "list", "--json"); !strings.Contains(list.stdout, inbox.Address) {
		t.Fatalf("the keystore lacks %s: %s", inbox.Address, list.stdout)
	}

	// extract waits (new: only mail sent after the call started); the mail
	// is sent once the process says it waits.
	type outcome struct {
		said string
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "extract", Arguments: map[string]any{
			"inbox": inbox.Address, "subject": "^Your sign-in code", "new": true, "timeout": "2m", "kind": "code"}})
		if err != nil {
			done <- outcome{err: err}
			return
		}
		raw, _ := json.Marshal(res)
		done <- outcome{said: string(raw)}
	}()
	c.stderr.waitFor(ctx, t, "sandview mcp: waiting up to 2m0s for 1 matching email(s) in "+inbox.Address, 1)
	servertest.MustSend(t, h.srv, inbox.Address, []byte("From: App <app@example.org>\r\nTo: "+inbox.Address+
		"\r\nSubject: Your sign-in code\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n"+
		"--b\r\nContent-Type: text/plain\r\n\r\nYour code is \x1b[31m482913\x1b[0m.\x07 Open https://app.example/verify?t=1\r\n"+
		"--b\r\nContent-Type: text/html\r\n\r\n<h1>Welcome aboard</h1><p>Your code is <b>482913</b>. <a href=\"https://app.example/verify?t=1\">Verify</a></p>\r\n--b--\r\n"))
	got := <-done
	if got.err != nil || !strings.Contains(got.said, `"value":"482913"`) || strings.Contains(got.said, `"isError":true`) {
		t.Fatalf("extract during the mail's sending: %v %s", got.err, got.said)
	}
	c.said = append(c.said, got.said)

	waited := callJSON[mcpWaited](ctx, c, "wait_for_email", map[string]any{"inbox": inbox.Address, "from": "@example\\.org", "timeout": "5s"})
	if len(waited.Emails) != 1 || waited.Emails[0].Subject != "Your sign-in code" || waited.Emails[0].ID == "" {
		t.Fatalf("wait_for_email: %+v", waited)
	}
	id := waited.Emails[0].ID
	link := callJSON[mcpExtracted](ctx, c, "extract", map[string]any{"inbox": inbox.Address, "id": id, "kind": "link"})
	pattern := callJSON[mcpExtracted](ctx, c, "extract", map[string]any{"id": id, "kind": "regex", "pattern": `verify\?t=(\d+)`})
	if link.Value != "https://app.example/verify?t=1" || pattern.Value != "1" || link.EmailID != id {
		t.Fatalf("extract by id: link %+v, regex %+v", link, pattern)
	}

	read := callJSON[mcpEmail](ctx, c, "read_email", map[string]any{"inbox": inbox.Address, "id": id})
	if read.Subject != "Your sign-in code" || !strings.Contains(read.Text, "482913") || !strings.Contains(read.HTMLText, "Welcome aboard") ||
		!slices.Contains(read.Codes, "482913") || !slices.Contains(read.Links, "https://app.example/verify?t=1") ||
		read.Headers["subject"]+read.Headers["Subject"] == "" || read.Verdict == "" {
		t.Fatalf("read_email: %+v", read)
	}
	if strings.ContainsAny(read.Text+read.HTMLText, "\x1b\x07") {
		t.Fatalf("read_email's text is not sanitized: %q", read.Text)
	}

	check := callJSON[struct {
		ID      string          `json:"id"`
		Verdict string          `json:"verdict"`
		HTML    json.RawMessage `json:"htmlCompatibility"`
		Spam    json.RawMessage `json:"spamAnalysis"`
	}](ctx, c, "check_email", map[string]any{"id": id})
	if check.ID != id || check.Verdict != read.Verdict || !bytes.Contains(check.HTML, []byte(`"score"`)) || string(check.Spam) != "null" {
		t.Fatalf("check_email: %+v", check)
	}

	for _, bad := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"extract", map[string]any{"id": id, "kind": "phone"}, "phone does not equal any of: [link code regex]"},
		{"extract", map[string]any{"id": id, "kind": "regex", "pattern": "(unclosed"}, "neither link, code nor a regular expression"},
		{"extract", map[string]any{"id": id, "kind": "regex"}, "kind regex needs a pattern"},
		{"extract", map[string]any{"id": id, "kind": "code", "new": true}, "not both"},
		{"extract", map[string]any{"inbox": inbox.Address, "subject": "^Nothing", "timeout": "0", "kind": "code"}, "timed out"},
		{"wait_for_email", map[string]any{"subject": "(", "timeout": "1s"}, "is not a regular expression"},
		{"wait_for_email", map[string]any{"timeout": "forever"}, `timeout "forever"`},
		{"wait_for_email", map[string]any{"timeout": "11m"}, `timeout "11m"`},
		{"wait_for_email", map[string]any{"count": -1}, "at least 1"},
		{"wait_for_email", map[string]any{"inbox": "nobody@nowhere.invalid", "timeout": "0"}, "neither in the keystore nor on the server"},
		{"wait_for_email", map[string]any{"sbject": "typo"}, "sbject"},
		{"read_email", map[string]any{}, "id"},
		{"read_email", map[string]any{"id": "no-such-email"}, "no-such-email"},
		{"read_email", map[string]any{"id": 42}, "id"},
		{"check_email", map[string]any{"id": " "}, "give id"},
		{"create_inbox", map[string]any{"ttl": "forever"}, "ttl"},
		{"create_inbox", map[string]any{"encryption": "rot13"}, "encryption"},
	} {
		if said := c.call(ctx, bad.tool, bad.args, true); !strings.Contains(said, bad.want) {
			t.Errorf("%s %v: %q lacks %q", bad.tool, bad.args, said, bad.want)
		}
	}
	if _, err := c.session.ListTools(ctx, nil); err != nil {
		t.Fatalf("the server did not survive bad input: %v", err)
	}

	// No secret in anything said: the protocol both ways, standard error.
	export := readExport(t, h, inbox.Address)
	everything := c.wire.String() + c.stderr.String() + strings.Join(c.said, "\n")
	for what, secret := range map[string]string{"the API key": servertest.APIKey, "the inbox's secret key": export} {
		if secret == "" || strings.Contains(everything, secret) {
			t.Errorf("%s (%q) is in the output", what, secret)
		}
	}
}

// TestMCPRefusedKey: a key the server refuses is a tool error that says
// how to pass the right one, never the key.
func TestMCPRefusedKey(t *testing.T) {
	h := newCLI(t)
	const wrong = "wrong-key-5f0c2a"
	c := startMCP(t, h.ctx, []string{"SERVICE_URL=" + h.srv.URL(), "SERVICE_API_KEY=" + wrong, "SANDVIEW_HOME=" + h.home}, "mcp")
	said := c.call(h.ctx, "create_inbox", map[string]any{}, true)
	if !strings.Contains(said, "refused the API key") || strings.Contains(c.wire.String()+c.stderr.String(), wrong) {
		t.Fatalf("create_inbox with a refused key: %q; stderr %q", said, c.stderr.String())
	}
}

// readExport is the secret key the keystore holds for address.
func readExport(t *testing.T, h *cli, address string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(h.home, "*", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			EmailAddress, SecretKey string
		}
		if json.Unmarshal(data, &d) == nil && d.EmailAddress == address {
			return d.SecretKey
		}
	}
	t.Fatalf("no export of %s under %s", address, h.home)
	return ""
}
