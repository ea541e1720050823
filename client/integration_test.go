package client_test

// Integration and end-to-end tests against the real embedded server
// (servertest: random loopback ports, API key "test-key", dev endpoint on),
// with mail delivered over SMTP by net/smtp.

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandview/client"
	"sandview/client/smtpsend"
	"sandview/crypto"
	"sandview/internal/clienttest"
	"sandview/model"
	"sandview/server"
	"sandview/server/servertest"
)

func startServer(t *testing.T, opts ...func(*server.Config)) (*server.Server, *client.Client) {
	t.Helper()
	srv := servertest.Start(t, opts...)
	return srv, newServerClient(t, srv)
}

func newServerClient(t *testing.T, srv *server.Server) *client.Client {
	t.Helper()
	c, err := client.New(srv.URL(), servertest.APIKey, client.WithRetries(1, 10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// sendSMTP delivers a multipart mail with a unicode subject, text, HTML
// and a small attachment.
func sendSMTP(t *testing.T, srv *server.Server, to, subject string) {
	t.Helper()
	attachment := base64.StdEncoding.EncodeToString([]byte("col1,col2\n1,2\n"))
	msg := strings.Join([]string{
		"From: \"Alice Tester\" <alice@example.org>",
		"To: " + to,
		"Subject: =?UTF-8?B?" + base64.StdEncoding.EncodeToString([]byte(subject)) + "?=",
		"MIME-Version: 1.0",
		`Content-Type: multipart/mixed; boundary="outer"`,
		"",
		"--outer",
		`Content-Type: multipart/alternative; boundary="inner"`,
		"",
		"--inner",
		"Content-Type: text/plain; charset=utf-8",
		"Content-Transfer-Encoding: 8bit",
		"",
		"Hello — 你好. Visit https://example.org/verify?code=42",
		"--inner",
		"Content-Type: text/html; charset=utf-8",
		"",
		`<p>Hello — 你好. <a href="https://example.org/verify?code=42">verify</a></p>`,
		"--inner--",
		"--outer",
		"Content-Type: text/csv",
		"Content-Transfer-Encoding: base64",
		`Content-Disposition: attachment; filename="data.csv"`,
		"",
		attachment,
		"--outer--",
		"",
	}, "\r\n")
	if err := smtpsend.Send(context.Background(), srv.SMTPAddr(), "alice@example.org", []string{to}, []byte(msg)); err != nil {
		t.Fatalf("send mail over SMTP: %v", err)
	}
}

func TestIntegrationServerInfoAndKey(t *testing.T) {
	srv, c := startServer(t)
	ctx := clienttest.Ctx(t)
	info, err := c.ServerInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.ServerSigPk != srv.ServerSigPk() || info.Algs != crypto.DefaultAlgs() || info.MaxTTL != 604800 ||
		info.DefaultTTL != 3600 || len(info.AllowedDomains) == 0 || info.EncryptionContext() != crypto.DefaultContext {
		t.Fatalf("server info %+v", info)
	}
	if ok, err := c.CheckKey(ctx); !ok || err != nil {
		t.Fatalf("valid key: %v %v", ok, err)
	}
	bad, err := client.New(srv.URL(), "wrong-key", client.WithRetries(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if ok, err := bad.CheckKey(ctx); ok || err != nil {
		t.Fatalf("invalid key: %v %v", ok, err)
	}
	_, err = bad.CreateInbox(ctx, client.CreateInboxOptions{})
	var unauthorized *client.UnauthorizedError
	if !errors.As(err, &unauthorized) {
		t.Fatalf("create with invalid key: %v", err)
	}
}

func TestIntegrationEncryptedInboxOverSMTP(t *testing.T) {
	srv, c := startServer(t)
	ctx := clienttest.Ctx(t)
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{TTL: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !in.Encrypted() || !strings.Contains(in.Address(), "@") || in.Hash() == "" || in.Info().ServerSigPk != srv.ServerSigPk() {
		t.Fatalf("inbox %+v", in.Info())
	}
	if left := time.Until(in.ExpiresAt()); left < 119*time.Minute || left > 121*time.Minute || in.IsExpired() {
		t.Fatalf("expires in %v", left)
	}
	if got, ok := c.Inbox(strings.ToUpper(in.Address())); !ok || got != in {
		t.Fatal("created inbox not loaded")
	}

	st1, err := in.SyncStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st2, err := in.SyncStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st1.EmailCount != 0 || st1.EmailsHash == "" || st1 != st2 {
		t.Fatalf("new inbox sync %+v / %+v", st1, st2)
	}
	if emails, err := in.Emails(ctx, client.ListOptions{}); err != nil || len(emails) != 0 {
		t.Fatalf("new inbox lists %v %v", emails, err)
	}
	var emailNotFound *client.EmailNotFoundError
	if _, err := in.Email(ctx, "no-such-id"); !errors.As(err, &emailNotFound) {
		t.Fatalf("unknown email: %v", err)
	}

	subject := "Réinitialisez — 你好 " + t.Name()
	sendSMTP(t, srv, in.Address(), subject)
	if st := clienttest.WaitForCount(t, in, 1); st.EmailsHash == st1.EmailsHash {
		t.Fatal("emailsHash did not change")
	}

	list, err := in.Emails(ctx, client.ListOptions{})
	if err != nil || len(list) != 1 || list[0].Subject != subject || list[0].HasContent || list[0].IsRead {
		t.Fatalf("metadata list %+v %v", list, err)
	}
	full, err := in.Emails(ctx, client.ListOptions{IncludeContent: true})
	if err != nil || len(full) != 1 {
		t.Fatalf("content list %v %v", full, err)
	}
	e := full[0]
	if e.Subject != subject || !strings.Contains(e.From, "alice@example.org") || len(e.To) != 1 ||
		!strings.EqualFold(e.To[0], in.Address()) || !e.HasContent || !strings.Contains(e.Text, "Hello — 你好") ||
		!strings.Contains(e.HTML, "verify</a>") || e.ReceivedAt.IsZero() {
		t.Fatalf("email %+v", e)
	}
	if len(e.Links) == 0 || e.Links[0] != "https://example.org/verify?code=42" {
		t.Errorf("links %q", e.Links)
	}
	if len(e.Attachments) != 1 || e.Attachments[0].Filename != "data.csv" || string(e.Attachments[0].Content) != "col1,col2\n1,2\n" {
		t.Errorf("attachments %+v", e.Attachments)
	}

	one, err := in.Email(ctx, e.ID)
	if err != nil || one.Subject != subject || one.Text != e.Text {
		t.Fatalf("single email %+v %v", one, err)
	}
	raw, err := in.Raw(ctx, e.ID)
	if err != nil || !strings.Contains(string(raw), "From: \"Alice Tester\" <alice@example.org>\r\n") {
		t.Fatalf("raw %.300q %v", raw, err)
	}

	if err := in.MarkRead(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if one, err = in.Email(ctx, e.ID); err != nil || !one.IsRead {
		t.Fatalf("after mark read: %v %v", one.IsRead, err)
	}
	if err := in.DeleteEmail(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Email(ctx, e.ID); !errors.As(err, &emailNotFound) || emailNotFound.ID != e.ID {
		t.Fatalf("deleted email: %v", err)
	}
	if err := in.DeleteEmail(ctx, e.ID); !errors.As(err, &emailNotFound) {
		t.Fatalf("deleting a deleted email: %v", err)
	}
}

func TestIntegrationPlainInboxAndTestEmail(t *testing.T) {
	_, c := startServer(t)
	ctx := clienttest.Ctx(t)
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionPlain})
	if err != nil {
		t.Fatal(err)
	}
	if in.Encrypted() || in.Hash() != crypto.PlainInboxHash(in.Address()) {
		t.Fatalf("plain inbox %+v", in.Info())
	}
	rdns := true
	id, err := c.SendTestEmail(ctx, model.TestEmailRequest{
		To: in.Address(), Subject: "Auth mix", Text: "test body",
		SPF: model.ResultFail, DKIM: model.ResultPass, DMARC: model.ResultNone, ReverseDNS: &rdns,
	})
	if err != nil || id == "" {
		t.Fatalf("test email: %q %v", id, err)
	}
	e, err := in.Email(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if e.Subject != "Auth mix" || e.Text != "test body" {
		t.Fatalf("test email %+v", e)
	}
	v := e.AuthResults.Validate()
	if v.Passed || v.SPFPassed || !v.DKIMPassed || v.DMARCPassed || !v.ReverseDNSPassed {
		t.Fatalf("auth %+v → %+v", e.AuthResults, v)
	}
	raw, err := in.Raw(ctx, id)
	if err != nil || !strings.Contains(string(raw), "Subject: Auth mix") {
		t.Fatalf("raw %.200q %v", raw, err)
	}

	var notFound *client.InboxNotFoundError
	if _, err := c.SendTestEmail(ctx, model.TestEmailRequest{To: "nobody@sandbox.test"}); !errors.As(err, &notFound) || notFound.Address != "nobody@sandbox.test" {
		t.Fatalf("test email to an unknown inbox: %v", err)
	}
}

func isStatus(err error, status int) bool {
	var apiErr *client.APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == status
}

func TestIntegrationEncryptionPolicy(t *testing.T) {
	_, c := startServer(t, func(cfg *server.Config) { cfg.EncryptionPolicy = model.PolicyDisabled })
	ctx := clienttest.Ctx(t)
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil || in.Encrypted() {
		t.Fatalf("default under policy disabled: %v %v", in, err)
	}
	in, err = c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionEncrypted})
	if err != nil || !in.Encrypted() {
		t.Fatalf("encrypted on request under policy disabled: %v", err)
	}
	if _, err := c.CreateInbox(ctx, client.CreateInboxOptions{TTL: time.Second}); err == nil {
		t.Fatal("TTL below the minimum accepted")
	}
}

func TestIntegrationDeleteInboxes(t *testing.T) {
	_, c := startServer(t)
	ctx := clienttest.Ctx(t)
	a, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.CreateInbox(ctx, client.CreateInboxOptions{Encryption: model.EncryptionPlain})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Inbox(a.Address()); ok {
		t.Fatal("deleted inbox still loaded")
	}
	var notFound *client.InboxNotFoundError
	if _, err := a.SyncStatus(ctx); !errors.As(err, &notFound) || notFound.Address != a.Address() || !isStatus(err, 404) {
		t.Fatalf("sync of a deleted inbox: %v", err)
	}
	if _, err := a.Emails(ctx, client.ListOptions{}); !errors.As(err, &notFound) {
		t.Fatalf("list of a deleted inbox: %v", err)
	}
	if err := c.DeleteInbox(ctx, a.Address()); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if _, err := c.CreateInbox(ctx, client.CreateInboxOptions{}); err != nil {
		t.Fatal(err)
	}
	n, err := c.DeleteAllInboxes(ctx)
	if err != nil || n < 2 {
		t.Fatalf("delete all: %d %v", n, err)
	}
	if len(c.Inboxes()) != 0 {
		t.Fatal("inboxes still loaded after delete all")
	}
	if _, err := b.SyncStatus(ctx); !errors.As(err, &notFound) {
		t.Fatalf("sync after delete all: %v", err)
	}
}

func TestIntegrationExportImportRoundTrip(t *testing.T) {
	srv, c := startServer(t)
	ctx := clienttest.Ctx(t)
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sendSMTP(t, srv, in.Address(), "round trip")
	clienttest.WaitForCount(t, in, 1)

	path := filepath.Join(t.TempDir(), "export.json")
	if err := c.ExportInboxToFile(in, path); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("export file: %v %v", info, err)
	}
	var alreadyExists *client.InboxAlreadyExistsError
	if _, err := c.ImportInboxFromFile(ctx, path); !errors.As(err, &alreadyExists) {
		t.Fatalf("import into the client that has it: %v", err)
	}

	c2 := newServerClient(t, srv)
	in2, err := c2.ImportInboxFromFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if in2.Address() != in.Address() || in2.Hash() != in.Hash() || !in2.Encrypted() ||
		!in2.ExpiresAt().Truncate(time.Millisecond).Equal(in.ExpiresAt().Truncate(time.Millisecond)) {
		t.Fatalf("imported %+v, exported %+v", in2.Info(), in.Info())
	}
	emails, err := in2.Emails(ctx, client.ListOptions{IncludeContent: true})
	if err != nil || len(emails) != 1 || emails[0].Subject != "round trip" {
		t.Fatalf("imported inbox reads %+v %v", emails, err)
	}
	if _, err := c2.ImportInboxFromFile(ctx, path); !errors.As(err, &alreadyExists) {
		t.Fatalf("second import: %v", err)
	}
}

func TestIntegrationImportErrors(t *testing.T) {
	srv, c := startServer(t)
	ctx := clienttest.Ctx(t)
	for _, tc := range importCases(t) {
		_, err := c.ImportInbox(ctx, tc.data)
		var invalid *client.InvalidImportDataError
		if !errors.As(err, &invalid) || invalid.Code != tc.code {
			t.Errorf("%s: %v, want code %q", tc.name, err, tc.code)
		}
	}
	// A secret key of the right size that is no ML-KEM-768 key.
	m := validExport(t)
	m["secretKey"] = crypto.EncodeBase64URL(bytes.Repeat([]byte{7}, crypto.KEMSecretKeySize))
	m["serverSigPk"] = srv.ServerSigPk()
	var invalid *client.InvalidImportDataError
	if _, err := c.ImportInbox(ctx, mustJSON(t, m)); !errors.As(err, &invalid) || invalid.Code != client.ErrCodeInvalidSecretKey {
		t.Fatalf("bad secret key: %v", err)
	}
	// The recorded export pins the reference deployment's key, not ours.
	_, err := c.ImportInbox(ctx, readFixture(t, "encrypted-inbox-export.json"))
	if !errors.As(err, &invalid) || invalid.Code != client.ErrCodeServerKeyMismatch {
		t.Fatalf("different server key: %v", err)
	}
	if len(c.Inboxes()) != 0 {
		t.Fatalf("%d inboxes loaded by failed imports", len(c.Inboxes()))
	}
}

func TestIntegrationManyEmailsListNewestFirst(t *testing.T) {
	_, c := startServer(t)
	ctx := clienttest.Ctx(t)
	in, err := c.CreateInbox(ctx, client.CreateInboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 12 // above the parallel threshold
	for k := range n {
		if _, err := c.SendTestEmail(ctx, model.TestEmailRequest{To: in.Address(), Subject: fmt.Sprintf("mail %02d", k)}); err != nil {
			t.Fatal(err)
		}
	}
	emails, err := in.Emails(ctx, client.ListOptions{IncludeContent: true})
	if err != nil || len(emails) != n {
		t.Fatalf("%d emails, %v", len(emails), err)
	}
	for k := 1; k < n; k++ {
		if emails[k].ReceivedAt.After(emails[k-1].ReceivedAt) {
			t.Fatalf("not newest first at %d: %v after %v", k, emails[k].ReceivedAt, emails[k-1].ReceivedAt)
		}
	}
	if last := fmt.Sprintf("mail %02d", n-1); emails[0].Subject != last && emails[0].ReceivedAt.After(emails[1].ReceivedAt) {
		t.Fatalf("newest is %q, want %q", emails[0].Subject, last)
	}
}
