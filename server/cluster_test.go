package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"sandview/client/smtpsend"
	"sandview/client/webhookrecv"
	"sandview/model"
	"sandview/server"
	"sandview/server/core"
	"sandview/server/emailauth"
	"sandview/server/servertest"
	"sandview/server/store/pgtest"
	"sandview/server/store/postgres"
)

// pg is the PostgreSQL server of this package's tests.
var pg *pgtest.Server

func TestMain(m *testing.M) { pgtest.Main(m, &pg, pgtest.Options{}) }

// onStore puts a server on a shared store.
func onStore(url string) func(*server.Config) {
	return func(cfg *server.Config) { cfg.StoreURL = url }
}

// replicas starts n servers on one new database.
func replicas(t *testing.T, n int, opts ...func(*server.Config)) ([]*server.Server, []*api) {
	t.Helper()
	url := pg.NewDatabase(t)
	var srvs []*server.Server
	var apis []*api
	for range n {
		srv, a := servertest.StartAPI(t, append([]func(*server.Config){onStore(url)}, opts...)...)
		srvs, apis = append(srvs, srv), append(apis, a)
	}
	return srvs, apis
}

// TestReplicasShareEverything: an inbox created on A takes mail on A that
// B lists, serves and streams, signed with the one key both pin; an
// encrypted inbox made on B takes mail on A; a webhook made on B fires once
// per event, with stats every replica reports.
func TestReplicasShareEverything(t *testing.T) {
	srvs, apis := replicas(t, 2, loopbackWebhooks)
	a, b := apis[0], apis[1]
	if srvs[0].ServerSigPk() != srvs[1].ServerSigPk() {
		t.Fatal("the replicas sign with different keys")
	}
	recv := listen(t)
	var hook model.Webhook
	b.Expect(http.StatusCreated, "POST", "/api/webhooks", model.CreateWebhookRequest{
		URL: recv.URL(), Events: []string{model.EventEmailReceived},
	}, &hook)
	recv.SetSecrets(hook.Secret)

	plain := a.CreatePlain(nil)
	stream := servertest.OpenStream(t, srvs[1], plain.InboxHash)
	servertest.MustSend(t, srvs[0], plain.EmailAddress, servertest.SimpleMessage(plain.EmailAddress, "across"))
	ev := stream.NextNotification(t)
	listed := b.Emails(plain.EmailAddress, true)
	if len(listed) != 1 || ev.EmailID != listed[0].ID || ev.InboxID != plain.InboxHash {
		t.Fatalf("stream on B gave %+v, B lists %+v", ev, listed)
	}
	if meta, _ := servertest.DecodePlain(t, listed[0]); meta.Subject != "across" {
		t.Fatalf("B serves metadata %+v", meta)
	}
	d := nextDelivery(t, recv)
	if d.Signature != webhookrecv.SignatureValid || d.Event != model.EventEmailReceived {
		t.Fatalf("delivery %s, signature %v", d.Event, d.Signature)
	}

	enc := b.CreateEncrypted(nil)
	servertest.MustSend(t, srvs[0], enc.EmailAddress, servertest.SimpleMessage(enc.EmailAddress, "sealed across"))
	d = nextDelivery(t, recv)
	if d.Event != model.EventEmailReceived {
		t.Fatalf("second delivery %s", d.Event)
	}
	rec := b.Emails(enc.EmailAddress, true)
	if len(rec) != 1 || rec[0].EncryptedParsed == nil {
		t.Fatalf("B lists %+v", rec)
	}
	// Opened with the key B announced, what either replica serves verifies.
	opener := openerFor(t, srvs[1], enc)
	var meta model.EmailMetadata
	if err := json.Unmarshal(mustOpen(t, opener, rec[0].EncryptedMetadata, "metadata"), &meta); err != nil || meta.Subject != "sealed across" {
		t.Fatalf("metadata %+v, %v", meta, err)
	}
	mustOpen(t, opener, rec[0].EncryptedParsed, "parsed")
	mustOpen(t, opener, a.Raw(enc.EmailAddress, rec[0].ID).EncryptedRaw, "raw")

	// Both replicas report the stats of two deliveries, and the
	// receiver saw no third.
	for _, x := range apis {
		deadline := time.Now().Add(10 * time.Second)
		for {
			var got model.Webhook
			x.Expect(http.StatusOK, "GET", "/api/webhooks/"+hook.ID, nil, &got)
			if got.Stats != nil && got.Stats.TotalDeliveries == 2 && got.Stats.SuccessfulDeliveries == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("stats %+v, want 2 successful deliveries", got.Stats)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	select {
	case extra := <-recv.Deliveries():
		t.Fatalf("a delivery was repeated: %s", extra.Event)
	default:
	}

	// Deleting the inbox on A leaves B without it.
	a.Expect(http.StatusNoContent, "DELETE", "/api/inboxes/"+plain.EmailAddress, nil, nil)
	deadline := time.Now().Add(5 * time.Second)
	for {
		status, _ := b.Do("GET", "/api/inboxes/"+plain.EmailAddress+"/emails", nil)
		if status == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B still serves the inbox A deleted: %d", status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReplicaExpiryRunsOnce: an inbox expiring with two replicas up is
// deleted once: one email.deleted (reason ttl) per email in all.
func TestReplicaExpiryRunsOnce(t *testing.T) {
	clock := &fakeClock{now: time.Now()}
	srvs, apis := replicas(t, 2, func(cfg *server.Config) { cfg.Now = clock.Now })
	in := apis[0].CreatePlain(map[string]any{"ttl": 60})
	servertest.MustSend(t, srvs[1], in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "expiring"))
	var subs []<-chan server.Event
	for _, srv := range srvs {
		ch, cancel := srv.Events().Subscribe(16)
		t.Cleanup(cancel)
		subs = append(subs, ch)
	}
	clock.Advance(2 * time.Minute)
	deleted := 0
	timeout := time.After(10 * time.Second)
	for deleted == 0 {
		for _, ch := range subs {
			select {
			case ev := <-ch:
				if ev.Type == model.EventEmailDeleted && ev.Reason == model.DeleteReasonTTL {
					deleted++
				}
			case <-timeout:
				t.Fatal("no email.deleted (ttl) within 10 s")
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	// The other replica's registry forgets the inbox; no replica deletes
	// the email a second time.
	for _, a := range apis {
		deadline := time.Now().Add(5 * time.Second)
		for {
			if status, _ := a.Do("GET", "/api/inboxes/"+in.EmailAddress+"/emails", nil); status == http.StatusNotFound {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("a replica still serves the expired inbox")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, ch := range subs {
		for {
			select {
			case ev := <-ch:
				if ev.Type == model.EventEmailDeleted {
					deleted++
				}
				continue
			default:
			}
			break
		}
	}
	if deleted != 1 {
		t.Fatalf("%d email.deleted events, want 1", deleted)
	}
}

// TestStoreStartErrors: a URL that does not parse, a wrong password, a
// database of a newer schema and an API key that differs from the stored
// one each stop the start with one clear error that shows no password.
func TestStoreStartErrors(t *testing.T) {
	good := pg.NewDatabase(t)
	servertest.StartAPI(t, onStore(good))
	newer := pg.NewDatabase(t)
	migrated, err := postgres.Open(context.Background(), newer, nil)
	if err != nil {
		t.Fatal(err)
	}
	migrated.Close()
	conn, err := pgx.Connect(context.Background(), newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "INSERT INTO schema_migrations (version, name) VALUES (9999, 'future')"); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())

	wrongPassword := strings.Replace(good, pg.Password(), "not-the-password", 1)
	cases := []struct {
		name, url, apiKey, want string
	}{
		{"unparsable", "postgres://%zz", "k", "store URL"},
		{"not postgres", "mysql://u@127.0.0.1/db", "k", "store URL"},
		{"wrong password", wrongPassword, "k", "password authentication failed"},
		{"refused", "postgres://postgres@127.0.0.1:1/db?connect_timeout=2", "k", "connect to PostgreSQL"},
		{"newer schema", newer, "k", "newer"},
		{"other API key", good, "another-key", "API key given differs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			srv, err := server.Start(ctx, server.Config{HTTPAddr: "127.0.0.1:0", SMTPAddr: "127.0.0.1:0", StoreURL: c.url, Options: core.Options{APIKey: c.apiKey, Resolver: &emailauth.StaticResolver{}}})
			if err == nil {
				srv.Close()
				t.Fatal("started")
			}
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), pg.Password()) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line with %q and no password", err, c.want)
			}
			if c.name == "newer schema" && !errors.Is(err, postgres.ErrNewerSchema) {
				t.Fatalf("error %v is not ErrNewerSchema", err)
			}
		})
	}
}

// TestProbes: /healthz and /readyz answer without an API key.
func TestProbes(t *testing.T) {
	srvs, _ := replicas(t, 1)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(srvs[0].URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Status string }
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || body.Status == "" {
			t.Fatalf("%s: %d %+v %v", path, resp.StatusCode, body, err)
		}
	}
}

// TestStoreOutage: while the database refuses connections SMTP answers 451
// and /readyz 503; once it is back, mail is taken again.
func TestStoreOutage(t *testing.T) {
	storeURL := pg.NewDatabase(t)
	srv, a := servertest.StartAPI(t, onStore(storeURL))
	in := a.CreatePlain(nil)
	admin, err := pgx.Connect(context.Background(), pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	db := storeURL[strings.LastIndexByte(storeURL, '/')+1:]
	setConnections := func(allow bool) {
		t.Helper()
		if _, err := admin.Exec(context.Background(), "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" WITH ALLOW_CONNECTIONS "+map[bool]string{true: "true", false: "false"}[allow]); err != nil {
			t.Fatal(err)
		}
		if !allow {
			if _, err := admin.Exec(context.Background(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", db); err != nil {
				t.Fatal(err)
			}
		}
	}
	setConnections(false)
	err = servertest.SendMail(srv.SMTPAddr(), "sender@example.org", []string{in.EmailAddress}, servertest.SimpleMessage(in.EmailAddress, "during the outage"))
	if smtpsend.Code(err) != 451 {
		t.Fatalf("SMTP during the outage: %v, want 451", err)
	}
	if resp, err := http.Get(srv.URL() + "/readyz"); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/readyz during the outage: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	setConnections(true)
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "after the outage"))
	if list := a.Emails(in.EmailAddress, false); len(list) != 1 {
		t.Fatalf("%d emails after the outage, want the one sent after it", len(list))
	}
}
