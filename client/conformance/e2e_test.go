package conformance_test

// End-to-end group: a server and SMTP.

import (
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/model"
)

func TestConformance_E2E_SubscriptionCallbackFires(t *testing.T) {
	tg := e2eTarget(t)
	for _, strategy := range []client.Strategy{client.StrategyAuto, client.StrategySSE, client.StrategyPolling} {
		t.Run(string(strategy), func(t *testing.T) {
			c := tg.newClient(t, client.WithStrategy(strategy))
			in := newInbox(t, c, "")
			got := newReceived()
			sub, err := in.OnNewEmail(got.add)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe()
			tg.smtpEmail(t, in.Address(), "over smtp")
			got.await(t, "over smtp")
		})
	}
}

func TestConformance_E2E_SubscriptionUnsubscribeStops(t *testing.T) {
	tg := e2eTarget(t)
	c := tg.newClient(t)
	in := newInbox(t, c, "")
	stopped, witness, sub := subscribeTwice(t, in)
	tg.smtpEmail(t, in.Address(), "before")
	stopped.await(t, "before")
	sub.Unsubscribe()
	sub.Unsubscribe()
	tg.smtpEmail(t, in.Address(), "after")
	witness.await(t, "before", "after")
	if stopped.count("after") != 0 {
		t.Fatal("callback fired after unsubscribe")
	}
}

func TestConformance_E2E_MonitorSeveralInboxes(t *testing.T) {
	tg := e2eTarget(t)
	c := tg.newClient(t)
	inboxes := []*client.Inbox{newInbox(t, c, model.EncryptionEncrypted), newInbox(t, c, model.EncryptionPlain), newInbox(t, c, "")}
	m, err := c.WatchInboxes(inboxes)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unsubscribe()
	got := newReceived()
	m.On(func(in *client.Inbox, e model.Email) {
		e.Subject = in.Address() + " " + e.Subject
		got.add(e)
	})
	var want []string
	for _, in := range inboxes {
		tg.smtpEmail(t, in.Address(), "hello")
		want = append(want, in.Address()+" hello")
	}
	got.await(t, want...)
}

func TestConformance_E2E_WaitForEmailDecrypts(t *testing.T) {
	tg := e2eTarget(t)
	c := tg.newClient(t)
	in := newInbox(t, c, model.EncryptionEncrypted)
	done := make(chan error, 1)
	var e model.Email
	go func() {
		var err error
		e, err = in.WaitForEmail(ctx(t), client.WaitOptions{Subject: client.Exactly("encrypted e2e"), Timeout: 20 * time.Second})
		done <- err
	}()
	tg.smtpEmail(t, in.Address(), "encrypted e2e")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if e.Problem != "" || !strings.Contains(e.Text, "body of encrypted e2e") || !strings.Contains(e.From, "conformance@example.org") {
		t.Fatalf("%+v", e)
	}
}

func TestConformance_E2E_WaitForCountReturnsWhenReached(t *testing.T) {
	tg := e2eTarget(t)
	c := tg.newClient(t)
	in := newInbox(t, c, "")
	done := make(chan error, 1)
	var got []model.Email
	go func() {
		var err error
		got, err = in.WaitForEmailCount(ctx(t), 2, client.WaitOptions{Timeout: 20 * time.Second})
		done <- err
	}()
	tg.smtpEmail(t, in.Address(), "one")
	tg.smtpEmail(t, in.Address(), "two")
	if err := <-done; err != nil || len(got) != 2 {
		t.Fatalf("%d emails, %v", len(got), err)
	}
}
