package cli

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSSHMCPIsConfined: `ssh box mcp` serves the protocol on the
// session's standard output to the SDK's client, as the key's own user:
// the inbox it creates is in that user's keystore on the box (another key
// does not see it); it waits on standard error; check_email's link check
// leaves a loopback address of the box unchecked; and mcp with a server
// flag is refused.
func TestSSHMCPIsConfined(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	alice, bob := newUserKey(t, "alice"), newUserKey(t, "bob")
	b := startSSHBox(t, ctx, alice.line+"\n"+bob.line+"\n")

	// A web server on the box's loopback that the link check must not reach.
	reached := make(chan string, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case reached <- r.URL.String():
		default:
		}
	})}
	go func() { _ = web.Serve(ln) }()
	t.Cleanup(func() { _ = web.Close() })

	conn, err := b.dial(alice.signer)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := newWatchedBuffer()
	s.Stderr = stderr
	if err := s.Start("mcp"); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "sandview-test", Version: "v0"}, nil)
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdout), Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("mcp over SSH: %v (stderr %s)", err, stderr.String())
	}
	c := &mcpClient{t: t, session: session, stderr: stderr}

	inbox := callJSON[mcpInbox](ctx, c, "create_inbox", map[string]any{})
	if out := b.runOK(alice, "inbox list --json"); !strings.Contains(out, inbox.Address) {
		t.Fatalf("alice's keystore on the box lacks %s: %s", inbox.Address, out)
	}
	if out := b.runOK(bob, "inbox list --json"); strings.Contains(out, inbox.Address) {
		t.Fatalf("bob sees alice's inbox: %s", out)
	}

	link := "http://" + ln.Addr().String() + "/admin"
	done := make(chan mcpExtracted, 1)
	go func() {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "extract", Arguments: map[string]any{
			"inbox": inbox.Address, "new": true, "timeout": "1m", "kind": "link"}})
		var got mcpExtracted
		if err == nil && !res.IsError {
			raw, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(raw, &got)
		}
		done <- got
	}()
	stderr.waitFor(ctx, t, "waiting up to 1m0s for 1 matching email(s) in "+inbox.Address, 1)
	b.send(inbox.Address, "Admin", "Go to "+link)
	got := <-done
	if got.Value != link {
		t.Fatalf("extract over SSH: %+v (stderr %s)", got, stderr.String())
	}
	check := callJSON[struct {
		Links []struct {
			URL, Outcome string
			Private      bool
		} `json:"links"`
	}](ctx, c, "check_email", map[string]any{"inbox": inbox.Address, "id": got.EmailID, "links": true})
	if len(check.Links) != 1 || !check.Links[0].Private || check.Links[0].Outcome != "not checked" {
		t.Fatalf("check_email's links over SSH: %+v", check.Links)
	}
	select {
	case path := <-reached:
		t.Fatalf("the link check reached the box's loopback: %s", path)
	default:
	}
	if err := session.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatalf("mcp over SSH ended with %v once its input closed; stderr: %s", err, stderr.String())
	}

	if _, errOut, code := b.run(alice.signer, "mcp --url http://127.0.0.1:1"); code != exitUsage || !strings.Contains(errOut, "not available over SSH") {
		t.Fatalf("mcp --url over SSH: exit %d, %s", code, errOut)
	}
}
