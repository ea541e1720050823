package cli

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// troubleshootingBlock is the first code block after heading in
// docs/troubleshooting.md: an error as sandview prints it.
func troubleshootingBlock(t *testing.T, heading string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "\n## "+heading+"\n")
	if ok {
		_, block, ok = strings.Cut(block, "```\n")
	}
	if ok {
		block, _, ok = strings.Cut(block, "```\n")
	}
	if !ok {
		t.Fatalf("docs/troubleshooting.md has no error block under %q", heading)
	}
	return block
}

// TestDocsTroubleshootingQuotesRealErrors: the errors docs/troubleshooting.md
// quotes are the ones sandview prints, word for word (with the example's
// address and port in place of the test's).
func TestDocsTroubleshootingQuotesRealErrors(t *testing.T) {
	t.Run("port taken", func(t *testing.T) {
		taken, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer taken.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, builtBinary, "serve", "--home", t.TempDir(), "--http", "127.0.0.1:0", "--smtp", taken.Addr().String())
		out, err := cmd.CombinedOutput()
		want := strings.ReplaceAll(troubleshootingBlock(t, "A port is taken"), "127.0.0.1:1025", taken.Addr().String())
		if err == nil || !strings.HasSuffix(string(out), want) {
			t.Fatalf("serve with its SMTP port taken: %v\n%s\nwant it to end with\n%s", err, out, want)
		}
	})
	t.Run("not in this keystore", func(t *testing.T) {
		h := newCLI(t)
		address := decodeJSON[inboxView](t, h.must("inbox", "create", "--json")).EmailAddress
		elsewhere := *h
		elsewhere.home = t.TempDir()
		r := elsewhere.run("email", "list", "--inbox", address)
		want := strings.ReplaceAll(troubleshootingBlock(t, `"… is encrypted and its key is not in this keystore"`), "qa-run-17@sandbox.test", address)
		if r.code != exitFailure || r.stderr != want {
			t.Fatalf("email list of an inbox another keystore holds: exit %d, %q; want %q", r.code, r.stderr, want)
		}
	})
	t.Run("server key mismatch", func(t *testing.T) {
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "troubleshooting.md"))
		if err != nil {
			t.Fatal(err)
		}
		const quoted = "`inbox ADDRESS was created on\n  a server with another signing key than URL`"
		if !strings.Contains(string(doc), quoted) {
			t.Fatalf("docs/troubleshooting.md no longer quotes %s", quoted)
		}
		first, second := newCLI(t), newCLI(t)
		address := decodeJSON[inboxView](t, first.must("inbox", "create", "--json")).EmailAddress
		export := filepath.Join(t.TempDir(), "qa.json")
		first.must("inbox", "export", address, export)
		r := second.run("inbox", "import", export)
		want := "inbox " + address + " was created on a server with another signing key than " + second.serverURL()
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Fatalf("import into another server: exit %d, %q; want %q", r.code, r.stderr, want)
		}
	})
}
