package keystore_test

import (
	"context"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/keystore"
	"sandview/model"
	"sandview/server/servertest"
)

// An inbox saved by one run is loaded by the next, with its mail readable.
func TestKeystoreRestoresInboxesAcrossRuns(t *testing.T) {
	srv := servertest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	newClient := func() *client.Client {
		c, err := client.New(srv.URL(), servertest.APIKey)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	c := newClient()
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionEncrypted})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := keystore.Open(keystore.Dir(t.TempDir(), c.BaseURL()))
	if err != nil {
		t.Fatal(err)
	}
	d, err := in.Export()
	if err != nil {
		t.Fatal(err)
	}
	if err := ks.Save(d); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendTestEmail(ctx, model.TestEmailRequest{To: in.Address(), Subject: "kept across runs"}); err != nil {
		t.Fatal(err)
	}

	// A later run: a new client loads the keystore.
	stored, err := ks.Load()
	if err != nil || len(stored) != 1 || stored[0].Expired {
		t.Fatalf("keystore %+v %v", stored, err)
	}
	in2, err := newClient().ImportInboxData(ctx, stored[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	emails, err := in2.Emails(ctx, client.ListOptions{})
	if err != nil || len(emails) != 1 || emails[0].Subject != "kept across runs" {
		t.Fatalf("restored inbox reads %+v %v", emails, err)
	}
}
