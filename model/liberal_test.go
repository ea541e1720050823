package model

import (
	"encoding/json"
	"reflect"
	"testing"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

func TestMetadataToStringOrArray(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`{"to":"a@x.test"}`, []string{"a@x.test"}},
		{`{"to":["a@x.test","b@x.test"]}`, []string{"a@x.test", "b@x.test"}},
		{`{"to":"\"Doe, Jane\" <j@x.test>, b@x.test"}`, []string{`"Doe, Jane" <j@x.test>`, "b@x.test"}},
		{`{"to":""}`, nil},
		{`{"to":null}`, nil},
		{`{}`, nil},
	}
	for _, tt := range tests {
		var m EmailMetadata
		if err := json.Unmarshal([]byte(tt.in), &m); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if !reflect.DeepEqual([]string(m.To), tt.want) {
			t.Errorf("%s: to = %q; want %q", tt.in, m.To, tt.want)
		}
	}
}

func TestHeaderMapShapes(t *testing.T) {
	in := `{
		"subject": "Hi",
		"from": {"value":[{"address":"dana@example.org","name":"Dana Example"}],"html":"<span>x</span>","text":"\"Dana Example\" <dana@example.org>"},
		"to": {"value":[{"address":"a@x.test","name":""}]},
		"content-type": {"value":"multipart/mixed","params":{"boundary":"b1","charset":"utf-8"}},
		"x-list": ["one", "two"],
		"x-num": 5,
		"x-null": null
	}`
	var h HeaderMap
	if err := json.Unmarshal([]byte(in), &h); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"subject":      "Hi",
		"from":         `"Dana Example" <dana@example.org>`,
		"to":           "a@x.test",
		"content-type": "multipart/mixed; boundary=b1; charset=utf-8",
		"x-list":       "one, two",
		"x-num":        "5",
		"x-null":       "",
	}
	if !reflect.DeepEqual(map[string]string(h), want) {
		t.Fatalf("headers = %q\nwant      %q", h, want)
	}
}

func TestParsedContentIgnoresUnknownFields(t *testing.T) {
	in := `{"text":"hi","html":null,"textAsHtml":"<p>hi</p>","messageId":"<x>","spamAnalysis":{"status":"skipped"},
		"attachments":[{"filename":"order.csv","contentType":"text/csv","size":17,"checksum":"27a0686bca5d91d3c6ab0d316f9c111f","content":"b3JkZXIscXR5CjEwNDIsMgo="}]}`
	var p ParsedContent
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if p.Text != "hi" || p.HTML != "" || p.Links != nil || len(p.Attachments) != 1 {
		t.Fatalf("parsed = %+v", p)
	}
	if got := string(p.Attachments[0].Content); got != "order,qty\n1042,2\n" {
		t.Fatalf("attachment content = %q", got)
	}
}

func TestErrorBodyMessageShapes(t *testing.T) {
	for in, want := range map[string]string{
		`{"statusCode":400,"message":"bad ttl","error":"Bad Request"}`:       "bad ttl",
		`{"message":["property spf should not exist","x"],"statusCode":400}`: "property spf should not exist; x",
	} {
		var e ErrorBody
		if err := json.Unmarshal([]byte(in), &e); err != nil {
			t.Fatal(err)
		}
		if e.Message.String() != want {
			t.Errorf("%s: message = %q; want %q", in, e.Message.String(), want)
		}
	}
}

func TestWebhookTemplateWireForms(t *testing.T) {
	b, err := json.Marshal(CreateWebhookRequest{URL: "https://x.test", Events: []string{EventEmailReceived}, Template: &WebhookTemplate{Type: TemplateSlack}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"url":"https://x.test","events":["email.received"],"template":"slack"}`; string(b) != want {
		t.Fatalf("got %s; want %s", b, want)
	}
	var tpl WebhookTemplate
	if err := json.Unmarshal([]byte(`{"type":"custom","body":"{\"s\":\"{{data.subject}}\"}"}`), &tpl); err != nil {
		t.Fatal(err)
	}
	if tpl.Type != TemplateCustom || tpl.Body == "" {
		t.Fatalf("template = %+v", tpl)
	}
}

func TestUpdateWebhookNullable(t *testing.T) {
	b, err := json.Marshal(UpdateWebhookRequest{Filter: Null[FilterConfig]()})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"filter":null}`; string(b) != want {
		t.Fatalf("got %s; want %s", b, want)
	}
	b, err = json.Marshal(UpdateWebhookRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{}` {
		t.Fatalf("empty update = %s; want {}", b)
	}
	var u UpdateWebhookRequest
	if err := json.Unmarshal([]byte(`{"template":null,"filter":{"mode":"any","rules":[]}}`), &u); err != nil {
		t.Fatal(err)
	}
	if !u.Template.Set || !u.Template.Null || !u.Filter.Set || u.Filter.Null || u.Filter.Value.Mode != FilterModeAny {
		t.Fatalf("decoded update = %+v", u)
	}
}

// TestHeaderMapDecodersAgree holds the stream decoder (UnmarshalJSONFrom,
// what clients decode lists with) to what encoding/json makes of the same
// headers with UnmarshalJSON.
func TestHeaderMapDecodersAgree(t *testing.T) {
	for _, in := range []string{
		`{"subject":"Hi","to":"a@x.test"}`,
		`{}`,
		`null`,
		`"a string"`,
		`["a"]`,
		`5`,
		`{"a":"one","a":"two"}`,
		`{"a":{"value":"text/plain","params":{"charset":"utf-8"}},"a":"last"}`,
		`{"x-null":null,"x-num":1e21,"x-bool":true,"x-list":["one",{"address":"b@x.test","name":"B"}]}`,
		`{"esc":"\u003cid@x\u003e \"q\" \\ \t","bad":"\ud800 lone","utf8":"caf\u00e9 ✓"}`,
		"{\"invalid\":\"\xff\xfe\",\"\xffname\":\"v\"}",
		`{"from":{"value":[{"address":"d@x.test","name":"Dana"}],"text":"\"Dana\" <d@x.test>"}}`,
		`{"a":"unterminated}`,
		`{"a":}`,
	} {
		var old, streamed struct{ H HeaderMap }
		oldErr := json.Unmarshal([]byte(`{"H":`+in+`}`), &old)
		streamedErr := jsonv1.Unmarshal([]byte(`{"H":`+in+`}`), &streamed)
		if (oldErr == nil) != (streamedErr == nil) {
			t.Errorf("%s: encoding/json's error %v, the stream's %v", in, oldErr, streamedErr)
			continue
		}
		if oldErr == nil && !reflect.DeepEqual(old.H, streamed.H) {
			t.Errorf("%s: encoding/json decodes %#v, the stream %#v", in, old.H, streamed.H)
		}
	}
}

// TestStringListDecodersAgree holds StringList's stream decoder to what
// encoding/json makes of the same value.
func TestStringListDecodersAgree(t *testing.T) {
	for _, in := range []string{`"a@x.test"`, `"\"Doe, Jane\" <j@x.test>, b@x.test"`, `""`, `null`, `["a","b"]`, `[]`, `5`, `{}`,
		`"\u003ca@x.test\u003e"`, "\"\xff\"", `["a",1]`} {
		var old, streamed struct{ L StringList }
		oldErr := json.Unmarshal([]byte(`{"L":`+in+`}`), &old)
		streamedErr := jsonv1.Unmarshal([]byte(`{"L":`+in+`}`), &streamed)
		if (oldErr == nil) != (streamedErr == nil) {
			t.Errorf("%s: encoding/json's error %v, the stream's %v", in, oldErr, streamedErr)
			continue
		}
		if oldErr == nil && !reflect.DeepEqual(old.L, streamed.L) {
			t.Errorf("%s: encoding/json decodes %#v, the stream %#v", in, old.L, streamed.L)
		}
	}
}
