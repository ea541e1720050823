package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/spf13/cobra"

	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/dnsresolve/dnstest"
)

// startLocalForTest runs what `sandview --local` runs before its TUI, in
// this process, on free ports; the returned harness runs the binary on the
// same home.
func startLocalForTest(t *testing.T) (*localRun, *cli) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	home := t.TempDir()
	local, err := startLocal(ctx, &globalOptions{home: home, env: processEnvironment(os.Environ())}, &localOptions{server: serverSettings{cfg: server.Config{HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Options: core.Options{DNSServers: []string{testDNS.Addr}}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(local.close)
	return local, &cli{t: t, home: home, ctx: ctx}
}

// TestCLILocal: with a local server running, commands given --local reach
// it from another process; all mail sent to its SMTP port lands in the
// TUI's inbox with its real recipients; a second `sandview --local` on the
// home says who holds it; once the server stops, --local says there is
// none.
func TestCLILocal(t *testing.T) {
	local, h := startLocalForTest(t)
	st, found, err := readLocalState(h.home)
	if err != nil || !found || st.PID != os.Getpid() || st.URL != local.srv.URL() || st.SMTP != local.srv.SMTPAddr() || st.CatchAll != local.inbox.Address() {
		t.Fatalf("state %+v (%v, found %v)", st, err, found)
	}
	if info, err := os.Stat(localStatePath(h.home)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v, mode %v; want 0600", err, info.Mode().Perm())
	}

	if r := h.mustRaw("--home", h.home, "email", "list", "--local"); !strings.Contains(r.stdout, "no emails yet") {
		t.Fatalf("email list --local: %q", r.stdout)
	}
	h.mustRaw("--home", h.home, "send", "--local", "--to", "Someone@Anywhere.example", "--subject", "Catch me")
	waited := decodeJSON[[]emailView](t, h.mustRaw("--home", h.home, "wait", "--local", "--subject", "^Catch me$", "--timeout", "20s", "--json"))
	if len(waited) != 1 || strings.Join(waited[0].To, ",") != "Someone@Anywhere.example" {
		t.Fatalf("waited %+v, want the mail with its real recipient", waited)
	}
	if list := h.mustRaw("--home", h.home, "email", "list", "--local").stdout; !strings.Contains(list, "Someone@Anywhere.example") {
		t.Fatalf("the list does not show the recipient:\n%s", list)
	}

	second := h.finish(h.startRaw("--home", h.home, "--local", "--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0"))
	if want := fmt.Sprintf("another sandview (pid %d) holds %s", os.Getpid(), h.home); second.code != exitUsage || !strings.Contains(second.stderr, want) || strings.Count(second.stderr, "\n") != 1 {
		t.Fatalf("a second --local: exit %d, %q; want exit 2 and one line with %q", second.code, second.stderr, want)
	}

	local.close()
	if _, err := os.Stat(localStatePath(h.home)); !os.IsNotExist(err) {
		t.Fatalf("the state file outlived the server: %v", err)
	}
	for _, args := range [][]string{{"email", "list", "--local"}, {"send", "--local", "--to", "x@localhost"}, {"wait", "--local"}} {
		r := h.finish(h.startRaw(append([]string{"--home", h.home}, args...)...))
		if r.code != exitUsage || !strings.Contains(r.stderr, "no local sandview server is running") || strings.Count(r.stderr, "\n") != 1 {
			t.Fatalf("%v without a local server: exit %d, %q", args, r.code, r.stderr)
		}
	}

	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if err := writeLocalState(h.home, localState{PID: gone.Process.Pid, URL: st.URL, SMTP: st.SMTP, APIKey: st.APIKey}); err != nil {
		t.Fatal(err)
	}
	if r := h.finish(h.startRaw("--home", h.home, "email", "list", "--local")); r.code != exitUsage || !strings.Contains(r.stderr, fmt.Sprintf("pid %d, is gone", gone.Process.Pid)) {
		t.Fatalf("a stale state file: exit %d, %q", r.code, r.stderr)
	}
}

// mustRaw runs the binary with exactly args and fails the test unless it
// exits 0.
func (c *cli) mustRaw(args ...string) cliRun {
	c.t.Helper()
	r := c.finish(c.startRaw(args...))
	if r.code != 0 {
		c.t.Fatalf("sandview %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r
}

// TestLocalAsksSVCDNS: `sandview --local` takes SVC_DNS as `serve` does:
// the authentication checks of a mail to its SMTP port ask that server.
func TestLocalAsksSVCDNS(t *testing.T) {
	records := dnstest.Start(t, dnstest.Options{}, `sender.example. 300 IN TXT "v=spf1 ip4:127.0.0.1 -all"`)
	root := &cobra.Command{}
	l := &localOptions{}
	l.register(root)
	if err := root.Flags().Parse([]string{"--http", "127.0.0.1:0", "--smtp", "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	if root.Flags().Lookup("dns") == nil {
		t.Fatal("`sandview --local` has no --dns")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := &globalOptions{home: t.TempDir(), env: mapEnvironment(map[string]string{"SVC_DNS": records.Addr})}
	local, err := startLocal(ctx, g, l)
	if err != nil {
		t.Fatal(err)
	}
	defer local.close()
	if err := sendMail(t.Context(), smtpsend.Dialer{}, local.srv.SMTPAddr(), outgoingMail{From: "someone@sender.example", To: local.inbox.Address(), Subject: "dns", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if asked, _ := records.Queries("sender.example.", dns.TypeTXT); asked > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the checks never asked SVC_DNS=%s for sender.example's SPF", records.Addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
