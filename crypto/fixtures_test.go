package crypto

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureDir holds traffic recorded from the reference deployment.
const fixtureDir = "../client/testdata/reference-deployment"

// fixtureContext is the reference deployment's context string (server-info).
const fixtureContext = "vaultsandbox:email:v1"

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return b
}

func decodeFixture(t testing.TB, name string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFixture(t, name), v); err != nil {
		t.Fatalf("decode fixture %s: %v", name, err)
	}
}

// fixtureInbox is the exported encrypted inbox that received the fixture mail.
type fixtureInbox struct {
	EmailAddress string `json:"emailAddress"`
	InboxHash    string `json:"inboxHash"`
	SecretKey    []byte
	ServerSigPk  []byte
}

func loadFixtureInbox(t testing.TB) fixtureInbox {
	t.Helper()
	var exp struct {
		EmailAddress string `json:"emailAddress"`
		InboxHash    string `json:"inboxHash"`
		SecretKey    string `json:"secretKey"`
		ServerSigPk  string `json:"serverSigPk"`
	}
	decodeFixture(t, "encrypted-inbox-export.json", &exp)
	sk, err := DecodeBase64URL(exp.SecretKey)
	if err != nil {
		t.Fatalf("export secretKey: %v", err)
	}
	pk, err := DecodeBase64URL(exp.ServerSigPk)
	if err != nil {
		t.Fatalf("export serverSigPk: %v", err)
	}
	return fixtureInbox{EmailAddress: exp.EmailAddress, InboxHash: exp.InboxHash, SecretKey: sk, ServerSigPk: pk}
}

// fixturePayload is one encrypted payload found in the fixtures.
type fixturePayload struct {
	name string
	kind string // "metadata", "parsed" or "raw"
	p    *Payload
}

// loadFixturePayloads returns every encrypted payload in the fixture files.
func loadFixturePayloads(t testing.TB) []fixturePayload {
	t.Helper()
	type record struct {
		EncryptedMetadata *Payload `json:"encryptedMetadata"`
		EncryptedParsed   *Payload `json:"encryptedParsed"`
		EncryptedRaw      *Payload `json:"encryptedRaw"`
	}
	var out []fixturePayload
	add := func(name string, r record) {
		for _, fp := range []fixturePayload{
			{name + "/metadata", "metadata", r.EncryptedMetadata},
			{name + "/parsed", "parsed", r.EncryptedParsed},
			{name + "/raw", "raw", r.EncryptedRaw},
		} {
			if fp.p != nil {
				out = append(out, fp)
			}
		}
	}

	var one record
	decodeFixture(t, "encrypted-email.json", &one)
	add("encrypted-email", one)
	var list []record
	decodeFixture(t, "encrypted-emails-list.json", &list)
	for _, r := range list {
		add("encrypted-emails-list", r)
	}
	var raw record
	decodeFixture(t, "encrypted-email-raw.json", &raw)
	add("encrypted-email-raw", raw)

	sc := bufio.NewScanner(bytes.NewReader(readFixture(t, "encrypted-event-stream.txt")))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev record
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event stream line: %v", err)
		}
		add("encrypted-event-stream", ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scan event stream: %v", err)
	}

	// One metadata, parsed and raw at least, plus the stream's metadata.
	if len(out) < 6 {
		t.Fatalf("found %d fixture payloads, want at least 6", len(out))
	}
	return out
}

func TestOpenFixtures(t *testing.T) {
	inbox := loadFixtureInbox(t)
	o, err := NewOpener(inbox.SecretKey, inbox.ServerSigPk, fixtureContext)
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range loadFixturePayloads(t) {
		t.Run(fp.name, func(t *testing.T) {
			if err := fp.p.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			pt, err := o.Open(fp.p)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			switch fp.kind {
			case "metadata":
				var md struct {
					From    string          `json:"from"`
					To      json.RawMessage `json:"to"` // a string or an array
					Subject string          `json:"subject"`
				}
				if err := json.Unmarshal(pt, &md); err != nil {
					t.Fatalf("metadata is not JSON: %v", err)
				}
				if md.From == "" || len(md.To) == 0 || md.Subject == "" {
					t.Errorf("metadata lacks from/to/subject: %s", pt)
				}
				if !strings.Contains(string(md.To), inbox.EmailAddress) {
					t.Errorf("metadata to = %s, want %s", md.To, inbox.EmailAddress)
				}
			case "parsed":
				var parsed map[string]json.RawMessage
				if err := json.Unmarshal(pt, &parsed); err != nil {
					t.Fatalf("parsed content is not a JSON object: %v", err)
				}
				if _, ok := parsed["headers"]; !ok {
					t.Errorf("parsed content lacks headers; keys %v", keys(parsed))
				}
			case "raw":
				msg, err := base64.StdEncoding.DecodeString(string(pt))
				if err != nil {
					t.Fatalf("raw is not base64 text: %v", err)
				}
				if !bytes.Contains(msg, []byte("\nSubject: ")) || !bytes.Contains(msg, []byte("\r\n\r\n")) {
					t.Errorf("raw is not an RFC 5322 message: %.200q", msg)
				}
			}

			// The same payload under the spec's default context must fail.
			if _, err := Open(fp.p, inbox.SecretKey, inbox.ServerSigPk, DefaultContext); err != ErrDecryptionFailed { //nolint:errorlint // must be exactly the sentinel
				t.Errorf("Open with DefaultContext = %v, want ErrDecryptionFailed", err)
			}
		})
	}
}

func TestFixtureServerInfoMatchesExport(t *testing.T) {
	var info struct {
		ServerSigPk string `json:"serverSigPk"`
		Algs        Algs   `json:"algs"`
		Context     string `json:"context"`
	}
	decodeFixture(t, "server-info.json", &info)
	inbox := loadFixtureInbox(t)
	if info.Context != fixtureContext {
		t.Errorf("server-info context = %q, want %q", info.Context, fixtureContext)
	}
	if info.Algs != DefaultAlgs() {
		t.Errorf("server-info algs = %+v, want %+v", info.Algs, DefaultAlgs())
	}
	if info.ServerSigPk != EncodeBase64URL(inbox.ServerSigPk) {
		t.Error("server-info serverSigPk differs from the exported pinned key")
	}
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
