package cli

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/server"
	"sandview/server/core"
)

// TestLocalKeepsItsCatchAllAcrossRestarts: `sandview --local` restarted on
// the same home, on other ports (so with another keystore) after another
// inbox was made, keeps the catch-all it had: the inbox the TUI names
// catch-all, the server's catch-all and the state file agree, and mail to
// any address lands in it.
func TestLocalKeepsItsCatchAllAcrossRestarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	home := t.TempDir()
	start := func() *localRun {
		t.Helper()
		run, err := startLocal(ctx, &globalOptions{home: home, env: processEnvironment(os.Environ())},
			&localOptions{server: serverSettings{cfg: server.Config{HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", Options: core.Options{DNSServers: []string{testDNS.Addr}}}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(run.close)
		return run
	}
	first := start()
	catchAll := first.inbox.Address()
	other, err := first.session.Client.CreateInbox(ctx, client.CreateInboxOptions{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.session.Save(other); err != nil {
		t.Fatal(err)
	}
	first.close()

	second := start()
	st, _, err := readLocalState(home)
	if err != nil || second.inbox.Address() != catchAll || second.srv.CatchAll() != strings.ToLower(catchAll) || st.CatchAll != catchAll {
		t.Fatalf("after a restart the catch-all is %q (server %q, state %q, %v); it was %q",
			second.inbox.Address(), second.srv.CatchAll(), st.CatchAll, err, catchAll)
	}
	if err := sendMail(t.Context(), smtpsend.Dialer{}, second.srv.SMTPAddr(), outgoingMail{From: "a@example.org", To: "anyone@elsewhere.example", Subject: "caught", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	list, err := second.inbox.Emails(ctx, client.ListOptions{})
	if err != nil || len(list) != 1 || list[0].Subject != "caught" {
		t.Fatalf("the catch-all holds %+v (%v), want the mail to anyone@elsewhere.example", list, err)
	}
}
