package server_test

import (
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

// swaks sends one message with swaks and returns its transcript.
func swaks(t *testing.T, srv *server.Server, from, to string) string {
	t.Helper()
	path, err := exec.LookPath("swaks")
	if err != nil {
		t.Fatal("swaks is needed for this test (apt-get install swaks)")
	}
	out, _ := exec.Command(path, "--server", srv.SMTPAddr(), "--from", from, "--to", to, "--h-Subject", "chaos", "--body", "hello", "--timeout", "60").CombinedOutput()
	return string(out)
}

// TestChaosSwaksAndNotices: swaks sees the greylisting and error replies,
// and a watcher on sandview's notice channel gets one chaos notice per
// action, as it happens.
func TestChaosSwaksAndNotices(t *testing.T) {
	srv, c := servertest.StartAPI(t, withChaos)
	in := c.CreatePlain(nil)
	lines := rawStream(t, srv, srv.APIKey(), "inboxes="+in.InboxHash+"&"+model.StreamNoticesParam+"="+model.StreamNoticesValue)
	setChaos(t, c, in.EmailAddress, map[string]any{"enabled": true, "greylist": on()})
	if out := swaks(t, srv, "app@example.org", in.EmailAddress); !strings.Contains(out, "451 4.7.1 Greylisting in operation, try again later") {
		t.Fatalf("swaks, first attempt:\n%s", out)
	}
	n := nextNotice(t, lines)
	want := model.ChaosAction{Type: model.ChaosTypeGreylist, Remote: "127.0.0.1", Sender: "app@example.org", Code: 451, Enhanced: "4.7.1", Attempt: 1, MaxAttempts: 2}
	if n.Kind != model.NoticeChaos || n.InboxHash != in.InboxHash || n.EmailAddress != in.EmailAddress || n.Chaos == nil || *n.Chaos != want {
		t.Fatalf("notice %+v %+v, want a chaos notice of %+v", n, n.Chaos, want)
	}
	if out := swaks(t, srv, "app@example.org", in.EmailAddress); !strings.Contains(out, "<-  250 ") {
		t.Fatalf("swaks, second attempt:\n%s", out)
	}
	setChaos(t, c, in.EmailAddress, map[string]any{"enabled": true, "randomError": on("errorRate", 1, "errorTypes", []string{"permanent"})})
	out := swaks(t, srv, "app@example.org", in.EmailAddress)
	if !strings.Contains(out, "<** 55") {
		t.Fatalf("swaks, permanent error:\n%s", out)
	}
	if n := nextNotice(t, lines); n.Kind != model.NoticeChaos || n.Chaos == nil || n.Chaos.Type != model.ChaosTypeRandomError || n.Chaos.Code/100 != 5 {
		t.Fatalf("notice %+v, want a random_error one", n)
	}
}

// TestChaosReplicas: two replicas on PostgreSQL share the configs and
// the greylisting state, a watcher on one sees the other's chaos actions,
// and a config goes with its inbox.
func TestChaosReplicas(t *testing.T) {
	srvs, apis := replicas(t, 2, withChaos)
	a, b := apis[0], apis[1]
	created := a.CreatePlain(nil)
	addr := created.EmailAddress
	onB := rawStream(t, srvs[1], srvs[1].APIKey(), "inboxes="+created.InboxHash+"&"+model.StreamNoticesParam+"="+model.StreamNoticesValue)
	setChaos(t, a, addr, map[string]any{"enabled": true, "greylist": on("trackBy", "sender")})
	if got := chaosOf(t, b, addr); !got.Enabled || got.Greylist == nil || got.Greylist.TrackBy != "sender" {
		t.Fatalf("replica B reads %+v", got)
	}
	if lines := smtplib(t, srvs[0], "app@example.org", addr, 1); !strings.HasPrefix(lines[0], "ERR 451 4.7.1") {
		t.Fatalf("first attempt on A: %q", lines)
	}
	if n := nextNotice(t, onB); n.Kind != model.NoticeChaos || n.InboxHash != created.InboxHash || n.Chaos == nil || n.Chaos.Type != model.ChaosTypeGreylist || n.Chaos.Attempt != 1 {
		t.Fatalf("a watcher on B got %+v, want A's greylisting", n)
	}
	if lines := smtplib(t, srvs[1], "app@example.org", addr, 1); !strings.HasPrefix(lines[0], "OK") {
		t.Fatalf("second attempt on B: %q (the greylisting state is not shared)", lines)
	}
	setChaos(t, b, addr, map[string]any{"enabled": true, "blackhole": on()})
	if lines := smtplib(t, srvs[0], "app@example.org", addr, 1); !strings.HasPrefix(lines[0], "OK") {
		t.Fatalf("blackholed on A: %q", lines)
	}
	a.WaitForCount(addr, 1) // the greylisting pass only
	if got := len(b.Emails(addr, false)); got != 1 {
		t.Fatalf("%d emails after a blackholed one, want 1", got)
	}
	// Made again on the replica that deleted it (another one learns of the
	// deletion a moment later, and meanwhile answers 409 for the address).
	b.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+addr, nil, nil)
	b.Expect(http.StatusCreated, "POST", "/api/inboxes", map[string]any{"encryption": "plain", "emailAddress": addr}, nil)
	if got := chaosOf(t, a, addr); got.Enabled || got.Blackhole != nil {
		t.Fatalf("config of an inbox made again at the address: %+v, want none", got)
	}
}

// TestChaosBlackholeWebhooks: a blackholed message to two inboxes is
// stored for neither, though only the first has chaos; with
// triggerWebhooks its email.received and email.stored webhooks still fire.
func TestChaosBlackholeWebhooks(t *testing.T) {
	srv, c := servertest.StartAPI(t, withChaos, loopbackWebhooks)
	recv := listen(t)
	var hook model.Webhook
	c.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{
		URL: recv.URL(), Events: []string{model.EventEmailReceived, model.EventEmailStored},
	}, &hook)
	first, second := c.CreatePlain(nil).EmailAddress, c.CreatePlain(nil).EmailAddress
	setChaos(t, c, first, map[string]any{"enabled": true, "blackhole": on("triggerWebhooks", true)})
	if err := servertest.SendMail(srv.SMTPAddr(), "app@example.org", []string{first, second}, servertest.SimpleMessage(first, "into the void")); err != nil {
		t.Fatalf("send: %v", err)
	}
	got := map[string]int{}
	for range 4 {
		got[nextDelivery(t, recv).Event]++
	}
	if got[model.EventEmailReceived] != 2 || got[model.EventEmailStored] != 2 {
		t.Fatalf("deliveries %v, want email.received and email.stored for each recipient", got)
	}
	for _, addr := range []string{first, second} {
		if n := len(c.Emails(addr, false)); n != 0 {
			t.Fatalf("%s holds %d emails, want none", addr, n)
		}
	}
}
