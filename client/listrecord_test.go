package client

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"sandview/model"
)

// FuzzDecodeRecord holds decodeRecord to jsonv1: a record it reads is
// one jsonv1 decodes without error into the same EmailRecord. Seeds are
// the records of a sealed and of a plain inbox, and near misses of them
// (which decodeRecord leaves to jsonv1).
func FuzzDecodeRecord(f *testing.F) {
	s := newSealedInbox(f)
	for _, raw := range s.records(f, 2) {
		f.Add(string(raw))
	}
	meta := base64.StdEncoding.EncodeToString([]byte(`{"id":"e1","from":"a@example.org","to":["p@sandbox.test"],"subject":"s"}`))
	plain := fmt.Sprintf(`{"id":"e1","inboxId":"h","receivedAt":"2026-11-21T12:00:00.000Z","isRead":false,"metadata":%q,"parsed":%q}`, meta, meta)
	for _, seed := range []string{
		plain, ` ` + plain + "\n", `{}`, `{"id":"a","id":"b"}`, `{"ID":"a"}`, `{"id":"a\"b"}`, `{"id":"a\u0041"}`, `{"id":"é"}`,
		"{\"id\":\"a\x01\"}", `{"id":null}`, `{"isRead":true}`, `{"isRead":tru}`, `{"isRead":1}`, `{"extra":1}`, `{"id":"a",}`,
		`{"encryptedMetadata":null}`, `{"encryptedMetadata":{}}`, `{"encryptedMetadata":{"v":01}}`, `{"encryptedMetadata":{"v":1.0}}`,
		`{"encryptedMetadata":{"v":1,"v":2}}`, `{"encryptedMetadata":{"algs":{"kem":"a","kem":"b"}}}`, `{"encryptedMetadata":{"v":1234567890}}`,
		`{"id":"a"} x`, `{"id":"a"`, `{"id" "a"}`, `[]`, `"x"`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var fast model.EmailRecord
		if !decodeRecord([]byte(raw), &fast) {
			return
		}
		var want model.EmailRecord
		if err := jsonv2.Unmarshal([]byte(raw), &want, jsonv1.DefaultOptionsV1()); err != nil {
			t.Fatalf("%q: decodeRecord read a record jsonv1 refuses: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("%q:\ndecodeRecord %+v\njsonv1       %+v", raw, fast, want)
		}
	})
}

// The records of the service's lists take decodeRecord's path: a sealed
// inbox's and a plain inbox's (the test would hold nothing if they fell
// back to jsonv1).
func TestServiceRecordsAreOfThePlainShape(t *testing.T) {
	s := newSealedInbox(t)
	for _, raw := range s.records(t, 3) {
		var rec model.EmailRecord
		if !decodeRecord(raw, &rec) || rec.EncryptedParsed == nil {
			t.Fatalf("decodeRecord did not read %.200s…", raw)
		}
	}
	meta := base64.StdEncoding.EncodeToString([]byte(`{"id":"e1"}`))
	var rec model.EmailRecord
	if !decodeRecord([]byte(fmt.Sprintf(`{"id":"e1","inboxId":"h","receivedAt":"2026-11-21T12:00:00.000Z","isRead":true,"metadata":%q}`, meta)), &rec) || !rec.IsRead || rec.Metadata != meta {
		t.Fatalf("decodeRecord did not read a plain record: %+v", rec)
	}
}
