package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sandview/client"
	"sandview/crypto"
)

// validExport returns the recorded export as a generic map to mutate.
func validExport(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readFixture(t, "encrypted-inbox-export.json"), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// importCases lists one broken export per validation rule, in the
// contract's order, with the code it must give ("" = no code).
func importCases(t *testing.T) []struct {
	name string
	data []byte
	code string
} {
	mutate := func(fn func(m map[string]any)) []byte {
		m := validExport(t)
		fn(m)
		return mustJSON(t, m)
	}
	shortKey := crypto.EncodeBase64URL(make([]byte, 100))
	return []struct {
		name string
		data []byte
		code string
	}{
		{"not JSON", []byte(`{"version":1,`), ""},
		{"JSON array", []byte(`[1,2]`), ""},
		{"JSON null", []byte(`null`), ""},
		{"version 2", mutate(func(m map[string]any) { m["version"] = 2 }), client.ErrCodeUnsupportedVersion},
		{"version string", mutate(func(m map[string]any) { m["version"] = "1" }), client.ErrCodeUnsupportedVersion},
		{"version missing", mutate(func(m map[string]any) { delete(m, "version") }), client.ErrCodeUnsupportedVersion},
		{"emailAddress missing", mutate(func(m map[string]any) { delete(m, "emailAddress") }), ""},
		{"expiresAt null", mutate(func(m map[string]any) { m["expiresAt"] = nil }), ""},
		{"inboxHash missing", mutate(func(m map[string]any) { delete(m, "inboxHash") }), ""},
		{"encrypted missing", mutate(func(m map[string]any) { delete(m, "encrypted") }), ""},
		{"exportedAt missing", mutate(func(m map[string]any) { delete(m, "exportedAt") }), ""},
		{"emailAddress empty", mutate(func(m map[string]any) { m["emailAddress"] = "" }), client.ErrCodeInvalidEmail},
		{"emailAddress no @", mutate(func(m map[string]any) { m["emailAddress"] = "nobody" }), client.ErrCodeInvalidEmail},
		{"emailAddress two @", mutate(func(m map[string]any) { m["emailAddress"] = "a@b@c" }), client.ErrCodeInvalidEmail},
		{"emailAddress number", mutate(func(m map[string]any) { m["emailAddress"] = 7 }), client.ErrCodeInvalidEmail},
		{"emailAddress ESC", mutate(func(m map[string]any) { m["emailAddress"] = "ceo\x1b[2K@bank.test" }), client.ErrCodeInvalidEmail},
		{"emailAddress NUL", mutate(func(m map[string]any) { m["emailAddress"] = "a\x00b@x.test" }), client.ErrCodeInvalidEmail},
		{"emailAddress DEL", mutate(func(m map[string]any) { m["emailAddress"] = "a\x7f@x.test" }), client.ErrCodeInvalidEmail},
		{"emailAddress C1", mutate(func(m map[string]any) { m["emailAddress"] = "a\u009b31m@x.test" }), client.ErrCodeInvalidEmail},
		{"emailAddress bidi", mutate(func(m map[string]any) { m["emailAddress"] = "a\u202egro@x.test" }), client.ErrCodeInvalidEmail},
		{"emailAddress zero width", mutate(func(m map[string]any) { m["emailAddress"] = "a\u200b@x.test" }), client.ErrCodeInvalidEmail},
		{"emailAddress slash", mutate(func(m map[string]any) { m["emailAddress"] = "../../etc/passwd@x.test" }), client.ErrCodeInvalidEmail},
		{"emailAddress backslash", mutate(func(m map[string]any) { m["emailAddress"] = "a\\b@x.test" }), client.ErrCodeInvalidEmail},
		{"emailAddress dot-dot local", mutate(func(m map[string]any) { m["emailAddress"] = "..@x.test" }), client.ErrCodeInvalidEmail},
		{"emailAddress dot-dot domain", mutate(func(m map[string]any) { m["emailAddress"] = "a@.." }), client.ErrCodeInvalidEmail},
		{"secretKey on plain inbox", mutate(func(m map[string]any) { m["encrypted"] = false }), client.ErrCodeInvalidEncryptedField},
		{"inboxHash empty", mutate(func(m map[string]any) { m["inboxHash"] = "" }), client.ErrCodeInvalidInboxHash},
		{"encrypted string", mutate(func(m map[string]any) { m["encrypted"] = "true" }), client.ErrCodeInvalidEncryptedField},
		{"secretKey missing", mutate(func(m map[string]any) { delete(m, "secretKey") }), client.ErrCodeMissingSecretKey},
		{"secretKey empty", mutate(func(m map[string]any) { m["secretKey"] = "" }), client.ErrCodeMissingSecretKey},
		{"secretKey bad base64", mutate(func(m map[string]any) { m["secretKey"] = "a+b/c=" }), client.ErrCodeInvalidSecretKey},
		{"secretKey size", mutate(func(m map[string]any) { m["secretKey"] = shortKey }), client.ErrCodeInvalidSecretKeySize},
		{"serverSigPk missing", mutate(func(m map[string]any) { delete(m, "serverSigPk") }), client.ErrCodeMissingServerKey},
		{"serverSigPk bad base64", mutate(func(m map[string]any) { m["serverSigPk"] = "%%%" }), client.ErrCodeInvalidServerKey},
		{"serverSigPk size", mutate(func(m map[string]any) { m["serverSigPk"] = shortKey }), client.ErrCodeInvalidServerKeySize},
		{"expiresAt not ISO", mutate(func(m map[string]any) { m["expiresAt"] = "tomorrow" }), ""},
		{"exportedAt not ISO", mutate(func(m map[string]any) { m["exportedAt"] = "2026-13-45" }), ""},
		{"exportedAt number", mutate(func(m map[string]any) { m["exportedAt"] = 12 }), ""},
		// Order: a bad version wins over every later rule.
		{"version before fields", mutate(func(m map[string]any) { m["version"] = 3; delete(m, "emailAddress") }), client.ErrCodeUnsupportedVersion},
		// Order: the secret key (step 7) is checked before the server key (8).
		{"secret before server key", mutate(func(m map[string]any) { delete(m, "secretKey"); delete(m, "serverSigPk") }), client.ErrCodeMissingSecretKey},
		// Order: keys (step 8) before timestamps (step 9).
		{"keys before timestamps", mutate(func(m map[string]any) { m["serverSigPk"] = shortKey; m["expiresAt"] = "x" }), client.ErrCodeInvalidServerKeySize},
	}
}

func TestValidateExportRules(t *testing.T) {
	for _, tc := range importCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			_, err := client.ValidateExport(tc.data)
			var invalid *client.InvalidImportDataError
			if !errors.As(err, &invalid) {
				t.Fatalf("error %v, want *InvalidImportDataError", err)
			}
			if invalid.Code != tc.code {
				t.Fatalf("code %q, want %q (%v)", invalid.Code, tc.code, err)
			}
			if strings.Contains(err.Error(), "tlWl0xYX") {
				t.Fatal("the error message shows the secret key")
			}
		})
	}
}

// TestValidateExportNamesHostileAddressProblems: the error names what is
// wrong and shows the address escaped (no control byte reaches the
// terminal).
func TestValidateExportNamesHostileAddressProblems(t *testing.T) {
	for address, want := range map[string]string{
		"ceo\x1b[2K@bank.test":   "control character U+001B",
		"a\x00b@x.test":          "control character U+0000",
		"a\u202egro@x.test":      "control character U+202E",
		"../etc/passwd@x.test":   "not a path",
		"..@x.test":              `path part ".."`,
		"nice.name@sandbox.test": "",
	} {
		m := validExport(t)
		m["emailAddress"] = address
		_, err := client.ValidateExport(mustJSON(t, m))
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", address, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || strings.ContainsAny(err.Error(), "\x00\x1b\u202e") {
			t.Errorf("%q: error %q, want it to say %q without raw control characters", address, err, want)
		}
	}
}

func TestValidateExportAcceptsSDKFileAndPlainInbox(t *testing.T) {
	d, err := client.ValidateExport(readFixture(t, "encrypted-inbox-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	if d.EmailAddress != encAddress || !d.Encrypted || d.EmailAuth == nil || !*d.EmailAuth {
		t.Fatalf("decoded %+v", d)
	}
	plain := []byte(`{"version":1,"emailAddress":"p@x.test","expiresAt":"2026-11-21T14:25:53Z",` +
		`"inboxHash":"h","encrypted":false,"exportedAt":"2026-11-21T13:25:53.076+01:00","extra":{"a":1}}`)
	d, err = client.ValidateExport(plain)
	if err != nil || d.Encrypted || d.SecretKey != "" {
		t.Fatalf("plain export: %+v %v", d, err)
	}
}

func TestImportAlreadyLoaded(t *testing.T) {
	c := newReplayClient(t, replay(t, nil))
	ctx := context.Background()
	data := readFixture(t, "encrypted-inbox-export.json")
	if _, err := c.ImportInbox(ctx, data); err != nil {
		t.Fatal(err)
	}
	var exists *client.InboxAlreadyExistsError
	if _, err := c.ImportInbox(ctx, data); !errors.As(err, &exists) || exists.Address != encAddress {
		t.Fatalf("same inbox again: %v", err)
	}
	// Same address in other case.
	m := validExport(t)
	m["emailAddress"] = strings.ToUpper(encAddress)
	m["inboxHash"] = "another-hash"
	if _, err := c.ImportInbox(ctx, mustJSON(t, m)); !errors.As(err, &exists) {
		t.Fatalf("same address: %v", err)
	}
	// Same hash, other address.
	m = validExport(t)
	m["emailAddress"] = "other@sandbox.test"
	if _, err := c.ImportInbox(ctx, mustJSON(t, m)); !errors.As(err, &exists) {
		t.Fatalf("same hash: %v", err)
	}
	if n := len(c.Inboxes()); n != 1 {
		t.Fatalf("%d inboxes loaded", n)
	}
	if _, ok := c.Inbox(strings.ToUpper(encAddress)); !ok {
		t.Fatal("lookup is not case-insensitive")
	}
}

func TestExportToFileRoundTrip(t *testing.T) {
	in := loadEncryptedFixture(t)
	path := filepath.Join(t.TempDir(), "inbox.json")
	if err := in.Client().ExportInboxToFile(in, path); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n  \"encrypted\": true,\n") || !strings.HasSuffix(string(data), "}\n") {
		t.Fatalf("not indented JSON with encrypted: %s", data)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
	original := validExport(t)
	var written map[string]any
	if err := json.Unmarshal(data, &written); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "emailAddress", "expiresAt", "inboxHash", "encrypted", "serverSigPk", "secretKey", "emailAuth"} {
		if written[k] != original[k] {
			t.Errorf("%s: wrote %v, recorded %v", k, written[k], original[k])
		}
	}
	// The file imports into a fresh client and opens the recorded mail.
	c2 := newReplayClient(t, replay(t, nil))
	in2, err := c2.ImportInboxFromFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := in2.Email(context.Background(), encEmailID)
	if err != nil || e.Subject != encSubject {
		t.Fatalf("re-imported inbox: %q %v", e.Subject, err)
	}
}
