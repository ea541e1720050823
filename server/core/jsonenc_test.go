package core

import (
	"bytes"
	"encoding/json"
	"testing"

	"sandview/crypto"
	"sandview/server/store"
)

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r", "\x00\x01\x1f", "Grüße ✓ 😀",
		"bad \xff utf8", "line sep \u2028 para \u2029", "<html>&amp;</html>"} {
		var want, got string
		wantJSON, _ := json.Marshal(s)
		if err := json.Unmarshal(wantJSON, &want); err != nil {
			t.Fatal(err)
		}
		encoded := AppendJSONString(nil, s)
		if err := json.Unmarshal(encoded, &got); err != nil {
			t.Fatalf("%q encodes to invalid JSON %s: %v", s, encoded, err)
		}
		if got != want {
			t.Fatalf("%q round-trips to %q, encoding/json gives %q", s, got, want)
		}
	}
}

// TestAppendPayloadRendersBothForms: sealed payloads (the metadata's own
// ct_kem, shared by the parsed one) render as JSON that opens; payloads an
// earlier version stored as JSON are served as they are.
func TestAppendPayloadRendersBothForms(t *testing.T) {
	f := newSignerFixture(t)
	env, err := f.inbox.sealer.NewEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	e := &store.Email{ID: "0000000000000001"}
	if e.Metadata, err = env.Seal([]byte("meta"), []byte("service:metadata"), true); err != nil {
		t.Fatal(err)
	}
	if e.Parsed, err = env.Seal([]byte("parsed"), []byte("service:parsed"), false); err != nil {
		t.Fatal(err)
	}
	legacy, err := f.inbox.sealer.Seal([]byte("raw"), []byte("service:raw"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Raw, err = json.Marshal(legacy); err != nil {
		t.Fatal(err)
	}
	for _, part := range []struct {
		stored []byte
		want   string
	}{{e.Metadata, "meta"}, {e.Parsed, "parsed"}, {e.Raw, "raw"}} {
		data, err := f.inbox.AppendPayload([]byte("prefix"), e, part.stored)
		if err != nil {
			t.Fatal(err)
		}
		data, ok := bytes.CutPrefix(data, []byte("prefix"))
		if !ok {
			t.Fatal("AppendPayload dropped what it appended to")
		}
		if got := f.open(t, data); got != part.want {
			t.Fatalf("opened %q, want %q", got, part.want)
		}
	}
	if got, _ := f.inbox.AppendPayload(nil, e, e.Raw); !bytes.Equal(got, e.Raw) {
		t.Fatal("a stored JSON payload must be served verbatim")
	}
	unsigned, err := env.Encrypt([]byte("x"), []byte("service:parsed"), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.inbox.AppendPayload(nil, e, unsigned); err == nil {
		t.Fatal("an unsigned payload was rendered")
	}
}

// testKeys makes an inbox key pair and a server signing key.
func testKeys(t testing.TB) (crypto.KeyPair, *crypto.SigningKey) {
	t.Helper()
	keys, err := crypto.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	return keys, key
}
