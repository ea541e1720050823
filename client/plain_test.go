package client_test

import (
	"errors"
	"testing"

	"sandview/client"
	"sandview/crypto"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server"
)

// TestOpenPlainInboxByAddress: a client that did not create the server's
// plain catch-all reads it by its address alone, sees mail that arrives
// (the stream names it by the plain hash), and is told plainly about an
// encrypted inbox, empty or not, or a missing one.
func TestOpenPlainInboxByAddress(t *testing.T) {
	srv, owner := startServer(t, func(c *server.Config) { c.CatchAll = "qa@sandbox.test" })
	ctx := clienttest.Ctx(t)
	reader := newServerClient(t, srv)

	// Empty: plain is assumed, with the plain hash.
	in, err := reader.OpenPlainInbox(ctx, "QA@sandbox.test")
	if err != nil {
		t.Fatal(err)
	}
	if in.Encrypted() || in.Hash() != crypto.PlainInboxHash("qa@sandbox.test") || in.IsExpired() {
		t.Fatalf("attached inbox: %+v", in.Info())
	}
	if again, err := reader.OpenPlainInbox(ctx, "qa@sandbox.test"); err != nil || again != in {
		t.Fatalf("second open: %v, %v", again, err)
	}
	// Mail for anyone reaches the catch-all and a waiting reader.
	sendSMTP(t, srv, "someone@elsewhere.example", "caught")
	got, err := in.WaitForEmail(ctx, client.WaitOptions{To: "Someone@Elsewhere.example"})
	if err != nil || got.Subject != "caught" {
		t.Fatalf("wait in the attached catch-all: %+v, %v", got, err)
	}
	var timeout *client.TimeoutError
	if _, err := in.WaitForEmail(ctx, client.WaitOptions{To: "else@elsewhere.example", Timeout: client.NoWait}); !errors.As(err, &timeout) {
		t.Fatalf("wait for another recipient's mail: %v", err)
	}
	// A second reader finds the inbox through its mail.
	other := newServerClient(t, srv)
	if in2, err := other.OpenPlainInbox(ctx, "qa@sandbox.test"); err != nil || in2.Hash() != in.Hash() {
		t.Fatalf("open with mail in it: %v", err)
	}

	enc, err := owner.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionEncrypted})
	if err != nil {
		t.Fatal(err)
	}
	var encrypted *client.EncryptedInboxError
	if _, err := reader.OpenPlainInbox(ctx, enc.Address()); !errors.As(err, &encrypted) {
		t.Fatalf("empty encrypted inbox: %v", err)
	}
	sendSMTP(t, srv, enc.Address(), "sealed")
	if _, err := enc.WaitForEmail(ctx, client.WaitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.OpenPlainInbox(ctx, enc.Address()); !errors.As(err, &encrypted) {
		t.Fatalf("encrypted inbox with mail: %v", err)
	}
	var notFound *client.InboxNotFoundError
	if _, err := reader.OpenPlainInbox(ctx, "nobody@sandbox.test"); !errors.As(err, &notFound) {
		t.Fatalf("missing inbox: %v", err)
	}
	if _, ok := reader.Inbox(enc.Address()); ok {
		t.Fatal("a refused inbox was loaded")
	}
}
