package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"sandview/client"
	"sandview/crypto"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
	"sandview/server/store"
	"sandview/server/store/bolt"
)

// openerFor opens an encrypted inbox's payloads the way a client does.
func openerFor(t testing.TB, srv *server.Server, in servertest.EncryptedInbox) *crypto.Opener {
	t.Helper()
	pinned, err := crypto.DecodeBase64URL(srv.ServerSigPk())
	if err != nil {
		t.Fatal(err)
	}
	opener, err := crypto.NewOpener(in.Keys.SecretKey, pinned, crypto.DefaultContext)
	if err != nil {
		t.Fatal(err)
	}
	return opener
}

func mustOpen(t testing.TB, opener *crypto.Opener, p *crypto.Payload, what string) []byte {
	t.Helper()
	if p == nil {
		t.Fatalf("%s: no payload", what)
	}
	plain, err := opener.Open(p)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return plain
}

// TestDeferredSignaturesAreMadeBeforeServing reads every payload at once
// after the 250s, racing the background signer: whoever signs, what is
// served verifies, and it stays the same once served.
func TestDeferredSignaturesAreMadeBeforeServing(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreateEncrypted(nil)
	opener := openerFor(t, srv, in)
	const n = 12
	for i := range n {
		servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, fmt.Sprintf("mail %d", i)))
	}
	list := a.Emails(in.EmailAddress, true)
	if len(list) != n {
		t.Fatalf("listed %d emails, want %d", len(list), n)
	}
	firstSig := map[string]string{}
	for _, rec := range list {
		mustOpen(t, opener, rec.EncryptedParsed, "listed parsed payload")
		firstSig[rec.ID] = rec.EncryptedParsed.Sig
	}
	raws := map[string]string{}
	for _, rec := range list {
		raw := a.Raw(in.EmailAddress, rec.ID)
		mustOpen(t, opener, raw.EncryptedRaw, "raw payload")
		raws[rec.ID] = raw.EncryptedRaw.Sig
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.WaitForSignatures(ctx); err != nil {
		t.Fatalf("background signing did not finish: %v", err)
	}
	for _, rec := range list {
		again := a.Email(in.EmailAddress, rec.ID)
		mustOpen(t, opener, again.EncryptedParsed, "parsed payload after background signing")
		if again.EncryptedParsed.Sig != firstSig[rec.ID] {
			t.Fatalf("email %s: its parsed payload was signed again after being served", rec.ID)
		}
		if raw := a.Raw(in.EmailAddress, rec.ID); raw.EncryptedRaw.Sig != raws[rec.ID] {
			t.Fatalf("email %s: its raw payload was signed again after being served", rec.ID)
		}
	}
}

// TestBackgroundSigningLeavesNothingUnsigned sends mail nobody reads and
// waits for the background signer; then one read of each payload verifies.
func TestBackgroundSigningLeavesNothingUnsigned(t *testing.T) {
	for _, signAtIngest := range []bool{false, true} {
		t.Run(fmt.Sprintf("signAtIngest=%t", signAtIngest), func(t *testing.T) {
			srv, a := servertest.StartAPI(t, func(cfg *server.Config) { cfg.SignAtIngest = signAtIngest })
			in := a.CreateEncrypted(nil)
			opener := openerFor(t, srv, in)
			for i := range 5 {
				servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, fmt.Sprintf("mail %d", i)))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.WaitForSignatures(ctx); err != nil {
				t.Fatal(err)
			}
			for _, rec := range a.Emails(in.EmailAddress, false) {
				got := a.Email(in.EmailAddress, rec.ID)
				mustOpen(t, opener, got.EncryptedMetadata, "metadata")
				mustOpen(t, opener, got.EncryptedParsed, "parsed")
				mustOpen(t, opener, a.Raw(in.EmailAddress, rec.ID).EncryptedRaw, "raw")
			}
		})
	}
}

// TestListingWhileSignedInPlace lists an encrypted inbox (metadata only,
// whose payload shares its allocation with the parsed and raw ones) again
// and again while the background signer signs the others where they lie:
// under -race, a reader of a byte the signer writes fails it; every
// metadata payload listed verifies, and so does everything once signed.
func TestListingWhileSignedInPlace(t *testing.T) {
	srv, a := servertest.StartAPI(t)
	in := a.CreateEncrypted(nil)
	opener := openerFor(t, srv, in)
	const n = 30
	for i := range n {
		servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, fmt.Sprintf("mail %d", i)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	signed := make(chan error, 1)
	go func() { signed <- srv.WaitForSignatures(ctx) }()
	for listing := true; listing; {
		select {
		case err := <-signed:
			if err != nil {
				t.Fatal(err)
			}
			listing = false
		default:
		}
		for _, rec := range a.Emails(in.EmailAddress, false) {
			mustOpen(t, opener, rec.EncryptedMetadata, "listed metadata")
		}
	}
	for _, rec := range a.Emails(in.EmailAddress, true) {
		mustOpen(t, opener, rec.EncryptedParsed, "parsed")
		mustOpen(t, opener, a.Raw(in.EmailAddress, rec.ID).EncryptedRaw, "raw")
	}
}

// TestUnsignedEmailsSurviveRestart stops the server right after the 250s,
// while signatures may still be pending, and reads everything after a
// restart on the same data directory.
func TestUnsignedEmailsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	key, err := crypto.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	withData := func(cfg *server.Config) { cfg.DataDir, cfg.SigningKey = dir, key }
	srv, a := servertest.StartAPI(t, withData)
	in := a.CreateEncrypted(nil)
	const n = 20
	for i := range n {
		servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, fmt.Sprintf("mail %d", i)))
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}

	srv, a = servertest.StartAPI(t, withData)
	opener := openerFor(t, srv, in)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.WaitForSignatures(ctx); err != nil {
		t.Fatal(err)
	}
	list := a.Emails(in.EmailAddress, true)
	if len(list) != n {
		t.Fatalf("%d emails after restart, want %d", len(list), n)
	}
	for _, rec := range list {
		mustOpen(t, opener, rec.EncryptedParsed, "parsed after restart")
		mustOpen(t, opener, a.Raw(in.EmailAddress, rec.ID).EncryptedRaw, "raw after restart")
	}
}

// TestDataDirectoryOfEarlierVersionsReads restarts a server on a data
// directory holding an email stored the way earlier versions stored them
// (every payload as EncryptedPayload JSON, each with its own ct_kem, parsed
// and raw awaiting their signatures): it is listed, signed and served.
func TestDataDirectoryOfEarlierVersionsReads(t *testing.T) {
	dir := t.TempDir()
	key, err := crypto.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	withData := func(cfg *server.Config) { cfg.DataDir, cfg.SigningKey = dir, key }
	srv, a := servertest.StartAPI(t, withData)
	in := a.CreateEncrypted(nil)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := bolt.Open(filepath.Join(dir, "sandview.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	const id = "0000000000000001abcdef01"
	legacy := &store.Email{ID: id, InboxHash: in.InboxHash, ReceivedAt: time.Unix(1e9, 0).UTC(), Unsigned: store.PartParsed | store.PartRaw}
	for _, part := range []struct {
		dst       *[]byte
		plaintext string
		aad       string
		unsigned  bool
	}{
		{&legacy.Metadata, `{"id":"` + id + `","from":"old@example.org","to":[],"subject":"from before","receivedAt":"2001-09-09T01:46:40.000Z"}`, "service:metadata", false},
		{&legacy.Parsed, `{"text":"kept","headers":{},"attachments":[],"links":[],"authResults":{}}`, "service:parsed", true},
		{&legacy.Raw, "Subject: from before\r\n\r\nkept\r\n", "service:raw", true},
	} {
		p, err := crypto.Seal(in.Keys.PublicKey, []byte(part.plaintext), []byte(part.aad), key, "")
		if err != nil {
			t.Fatal(err)
		}
		if part.unsigned {
			p.Sig = crypto.EncodeBase64URL(make([]byte, crypto.SignatureSize))
		}
		if *part.dst, err = json.Marshal(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Commit(context.Background(), store.Batch{Put: []*store.Email{legacy}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	srv, a = servertest.StartAPI(t, withData)
	opener := openerFor(t, srv, in)
	list := a.Emails(in.EmailAddress, true)
	if len(list) != 1 {
		t.Fatalf("listed %d emails, want 1", len(list))
	}
	var meta model.EmailMetadata
	if err := json.Unmarshal(mustOpen(t, opener, list[0].EncryptedMetadata, "metadata"), &meta); err != nil || meta.Subject != "from before" {
		t.Fatalf("metadata %+v, %v", meta, err)
	}
	var parsed model.ParsedContent
	if err := json.Unmarshal(mustOpen(t, opener, list[0].EncryptedParsed, "parsed"), &parsed); err != nil || parsed.Text != "kept" {
		t.Fatalf("parsed %+v, %v", parsed, err)
	}
	if raw := mustOpen(t, opener, a.Raw(in.EmailAddress, id).EncryptedRaw, "raw"); string(raw) != "Subject: from before\r\n\r\nkept\r\n" {
		t.Fatalf("raw %q", raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// sandview's client reads the raw message of both forms: the message
	// itself (earlier versions) and base64 text of it (now).
	servertest.MustSend(t, srv, in.EmailAddress, servertest.SimpleMessage(in.EmailAddress, "now"))
	c, err := client.New(srv.URL(), srv.APIKey())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	yes := true
	inbox, err := c.ImportInboxData(ctx, model.ExportedInbox{Version: model.ExportVersion, EmailAddress: in.EmailAddress,
		ExpiresAt: in.ExpiresAt.Format(time.RFC3339), InboxHash: in.InboxHash, Encrypted: true, EmailAuth: &yes,
		ServerSigPk: srv.ServerSigPk(), SecretKey: crypto.EncodeBase64URL(in.Keys.SecretKey), ExportedAt: time.Now().Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range a.Emails(in.EmailAddress, false) {
		raw, err := inbox.Raw(ctx, rec.ID)
		if err != nil || !bytes.HasSuffix(raw, []byte("\r\n\r\nkept\r\n")) && !bytes.HasSuffix(raw, []byte("Hello now\r\n")) {
			t.Fatalf("client raw of %s: %q, %v; want the message", rec.ID, raw, err)
		}
	}
	if err := srv.WaitForSignatures(ctx); err != nil {
		t.Fatal(err)
	}
}
