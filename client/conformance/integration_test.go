package conformance_test

// Integration group: a server, no SMTP (mail from the test-email endpoint).

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/crypto"
	"sandview/model"
)

func TestConformance_Integration_CheckKeyValid(t *testing.T) {
	tg := integrationTarget(t)
	ok, err := tg.newClient(t).CheckKey(ctx(t))
	if err != nil || !ok {
		t.Fatalf("valid key: %v, %v", ok, err)
	}
}

func TestConformance_Integration_CheckKeyInvalid(t *testing.T) {
	tg := integrationTarget(t)
	c, err := client.New(tg.url, tg.apiKey+"-wrong")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ok, err := c.CheckKey(ctx(t))
	var unauthorized *client.UnauthorizedError
	if ok || (err != nil && !errors.As(err, &unauthorized)) {
		t.Fatalf("invalid key: %v, %v", ok, err)
	}
}

func TestConformance_Integration_ServerInfo(t *testing.T) {
	tg := integrationTarget(t)
	info, err := tg.newClient(t).ServerInfo(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.DecodeBase64URL(info.ServerSigPk)
	if err != nil || len(key) != crypto.SigPublicKeySize {
		t.Fatalf("signing key %q: %v", info.ServerSigPk, err)
	}
	if info.Algs.KEM == "" || info.Algs.Sig == "" || info.Algs.AEAD == "" || info.Algs.KDF == "" {
		t.Fatalf("algorithms %+v", info.Algs)
	}
	if info.MaxTTL <= 0 || info.DefaultTTL <= 0 || len(info.AllowedDomains) == 0 {
		t.Fatalf("max TTL %d, default TTL %d, domains %v", info.MaxTTL, info.DefaultTTL, info.AllowedDomains)
	}
}

func TestConformance_Integration_InboxCreate(t *testing.T) {
	tg := integrationTarget(t)
	in := newInbox(t, tg.newClient(t), "")
	if !strings.Contains(in.Address(), "@") || in.Hash() == "" || !in.ExpiresAt().After(time.Now()) {
		t.Fatalf("address %q, hash %q, expiry %s", in.Address(), in.Hash(), in.ExpiresAt())
	}
}

func TestConformance_Integration_InboxDeleteThenAccess(t *testing.T) {
	tg := integrationTarget(t)
	c := tg.newClient(t)
	in := newInbox(t, c, "")
	if err := in.Delete(ctx(t)); err != nil {
		t.Fatal(err)
	}
	_, err := in.SyncStatus(ctx(t))
	var notFound *client.InboxNotFoundError
	if !errors.As(err, &notFound) {
		t.Fatalf("access after delete: %v", err)
	}
}

func TestConformance_Integration_InboxDeleteAllCount(t *testing.T) {
	tg := integrationTarget(t)
	c := tg.newClient(t)
	for range 3 {
		newInbox(t, c, "")
	}
	n, err := c.DeleteAllInboxes(ctx(t))
	if err != nil || n < 3 {
		t.Fatalf("deleted %d, %v; want at least 3", n, err)
	}
}

func TestConformance_Integration_InboxNewSyncStatus(t *testing.T) {
	tg := integrationTarget(t)
	in := newInbox(t, tg.newClient(t), "")
	first, err := in.SyncStatus(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	again, err := in.SyncStatus(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if first.EmailCount != 0 || first.EmailsHash == "" || again.EmailsHash != first.EmailsHash {
		t.Fatalf("sync status %+v then %+v", first, again)
	}
}

func TestConformance_Integration_InboxNewListsNoEmails(t *testing.T) {
	tg := integrationTarget(t)
	emails, err := newInbox(t, tg.newClient(t), "").Emails(ctx(t), client.ListOptions{})
	if err != nil || len(emails) != 0 {
		t.Fatalf("%d emails, %v", len(emails), err)
	}
}

func TestConformance_Integration_UnknownEmailID(t *testing.T) {
	tg := integrationTarget(t)
	_, err := newInbox(t, tg.newClient(t), "").Email(ctx(t), "msg_does_not_exist")
	var notFound *client.EmailNotFoundError
	if !errors.As(err, &notFound) {
		t.Fatalf("%v, want email-not-found", err)
	}
}

func TestConformance_Integration_WaitTimeout(t *testing.T) {
	tg := integrationTarget(t)
	in := newInbox(t, tg.newClient(t), "")
	_, err := in.WaitForEmail(ctx(t), client.WaitOptions{Timeout: 300 * time.Millisecond})
	var timeout *client.TimeoutError
	if !errors.As(err, &timeout) {
		t.Fatalf("%v, want a timeout error", err)
	}
}

func TestConformance_Integration_WaitZeroTimeoutReturnsAtOnce(t *testing.T) {
	tg := integrationTarget(t)
	in := newInbox(t, tg.newClient(t), "")
	start := time.Now()
	_, err := in.WaitForEmail(ctx(t), client.WaitOptions{Timeout: client.NoWait})
	var timeout *client.TimeoutError
	if !errors.As(err, &timeout) || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %s, want a timeout error at once", err, time.Since(start))
	}
}

func TestConformance_Integration_WaitForCountReturnsWhenReached(t *testing.T) {
	tg := integrationTarget(t)
	c := tg.newClient(t)
	in := newInbox(t, c, "")
	testEmail(t, c, in.Address(), "count 1")
	done := make(chan error, 1)
	var got []model.Email
	go func() {
		var err error
		got, err = in.WaitForEmailCount(ctx(t), 3, client.WaitOptions{Subject: client.Contains("count"), Timeout: 20 * time.Second})
		done <- err
	}()
	testEmail(t, c, in.Address(), "count 2")
	testEmail(t, c, in.Address(), "count 3")
	if err := <-done; err != nil || len(got) != 3 {
		t.Fatalf("%d emails, %v", len(got), err)
	}
}

func TestConformance_Integration_ExportImportRoundTrip(t *testing.T) {
	tg := integrationTarget(t)
	a := tg.newClient(t)
	in := newInbox(t, a, model.EncryptionEncrypted)
	testEmail(t, a, in.Address(), "exported")
	d, err := in.Export()
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	b := tg.newClient(t)
	imported, err := b.ImportInbox(ctx(t), data)
	if err != nil {
		t.Fatal(err)
	}
	e, err := imported.WaitForEmail(ctx(t), client.WaitOptions{Subject: client.Exactly("exported"), Timeout: 20 * time.Second})
	if err != nil || e.Problem != "" || !strings.Contains(e.Text, "body of exported") {
		t.Fatalf("imported inbox: %+v, %v", e, err)
	}
}

func TestConformance_Integration_ImportDifferentServerKey(t *testing.T) {
	tg := integrationTarget(t)
	in := newInbox(t, tg.newClient(t), model.EncryptionEncrypted)
	d, err := in.Export()
	if err != nil {
		t.Fatal(err)
	}
	other, err := crypto.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	d.ServerSigPk = crypto.EncodeBase64URL(other.PublicKey())
	_, err = tg.newClient(t).ImportInboxData(ctx(t), d)
	var invalid *client.InvalidImportDataError
	if !errors.As(err, &invalid) {
		t.Fatalf("%v, want an invalid-import error", err)
	}
}

func TestConformance_Integration_ImportAlreadyLoaded(t *testing.T) {
	tg := integrationTarget(t)
	c := tg.newClient(t)
	in := newInbox(t, c, "")
	d, err := in.Export()
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ImportInboxData(ctx(t), d)
	var exists *client.InboxAlreadyExistsError
	if !errors.As(err, &exists) {
		t.Fatalf("%v, want already-exists", err)
	}
}

func TestConformance_Integration_SubscriptionCallbackFires(t *testing.T) {
	tg := integrationTarget(t)
	c := tg.newClient(t)
	in := newInbox(t, c, "")
	got := newReceived()
	sub, err := in.OnNewEmail(got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	testEmail(t, c, in.Address(), "callback")
	got.await(t, "callback")
}

func TestConformance_Integration_SubscriptionUnsubscribeStops(t *testing.T) {
	tg := integrationTarget(t)
	c := tg.newClient(t)
	in := newInbox(t, c, "")
	stopped, witness, sub := subscribeTwice(t, in)
	sub.Unsubscribe()
	testEmail(t, c, in.Address(), "after unsubscribe")
	witness.await(t, "after unsubscribe")
	if stopped.count("after unsubscribe") != 0 {
		t.Fatal("callback fired after unsubscribe")
	}
}

func TestConformance_Integration_SubscriptionUnsubscribeTwice(t *testing.T) {
	tg := integrationTarget(t)
	c := tg.newClient(t)
	in := newInbox(t, c, "")
	sub, err := in.OnNewEmail(func(model.Email) {})
	if err != nil {
		t.Fatal(err)
	}
	sub.Unsubscribe()
	sub.Unsubscribe()
	m, err := c.WatchInboxes([]*client.Inbox{in})
	if err != nil {
		t.Fatal(err)
	}
	m.Unsubscribe()
	m.Unsubscribe()
	// The client still works after the double unsubscribes.
	got := newReceived()
	again, err := in.OnNewEmail(got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Unsubscribe()
	testEmail(t, c, in.Address(), "still works")
	got.await(t, "still works")
}

func TestConformance_Integration_MonitorSeveralInboxes(t *testing.T) {
	tg := integrationTarget(t)
	c := tg.newClient(t)
	a, b := newInbox(t, c, model.EncryptionEncrypted), newInbox(t, c, model.EncryptionPlain)
	m, err := c.WatchInboxes([]*client.Inbox{a, b})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	got := newReceived()
	m.On(func(in *client.Inbox, e model.Email) {
		e.Subject = in.Address() + " " + e.Subject
		got.add(e)
	})
	testEmail(t, c, a.Address(), "to a")
	testEmail(t, c, b.Address(), "to b")
	got.await(t, a.Address()+" to a", b.Address()+" to b")

	empty, err := c.WatchInboxes(nil)
	if err != nil {
		t.Fatalf("an empty monitor: %v", err)
	}
	empty.Unsubscribe()
}
