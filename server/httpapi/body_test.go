package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"sandview/model"
)

// decodeServer is a loopback server whose one route decodes its body with
// DecodeBody and answers what it decoded.
func decodeServer(t *testing.T) string {
	t.Helper()
	type rule struct {
		Field string `json:"field"`
	}
	type common struct {
		Level *int `json:"level,omitempty"`
	}
	type request struct {
		common
		Name  string `json:"name"`
		Count *int   `json:"count"`
		Tags  []string
		Rules []rule            `json:"rules,omitempty"`
		Extra map[string]string `json:"extra,omitempty"`
		Raw   json.RawMessage   `json:"raw,omitempty"`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := request{Name: "untouched"}
		if !DecodeBody(w, r, &req) {
			return
		}
		WriteJSON(w, http.StatusOK, req)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestDecodeBody(t *testing.T) {
	url := decodeServer(t)
	tests := []struct {
		name   string
		body   string
		status int
		want   string // the decoded value, or a part of the error message
	}{
		{"empty body is the empty object", "", 200, `{"name":"untouched","count":null,"Tags":null}`},
		{"whitespace is the empty object", " \r\n\t ", 200, `{"name":"untouched","count":null,"Tags":null}`},
		{"the empty object", "{}", 200, `{"name":"untouched","count":null,"Tags":null}`},
		{"fields", `{"name":"a","count":2,"Tags":["x"]}`, 200, `{"name":"a","count":2,"Tags":["x"]}`},
		{"an unknown property is named", `{"name":"a","colour":"red"}`, 400, "property colour should not exist (allowed here: name, count, Tags, rules, extra, raw, level)"},
		{"names match exactly", `{"Name":"a"}`, 400, "property Name should not exist"},
		{"a nested unknown property is named with its path", `{"rules":[{"field":"a"},{"field":"b","colour":1}]}`, 400, "property rules[1].colour should not exist (allowed here: field)"},
		{"a repeated property", `{"name":"a","name":"b"}`, 400, "property name is given more than once"},
		{"a map takes any key", `{"extra":{"colour":"red"}}`, 200, `{"name":"untouched","count":null,"Tags":null,"extra":{"colour":"red"}}`},
		{"a self-decoding value is its owner's to check", `{"raw":{"colour":"red"}}`, 200, `{"name":"untouched","count":null,"Tags":null,"raw":{"colour":"red"}}`},
		{"not an object", `[1]`, 400, "request body must be an object, got JSON array"},
		{"wrong type deep inside names the path", `{"rules":[{"field":3}]}`, 400, "field rules.field must be a string, got number"},
		{"wrong type names the field and the kind", `{"count":"2"}`, 400, "field count must be an integer, got string"},
		{"wrong type in an array", `{"Tags":[1]}`, 400, "field Tags must be a string, got number"},
		{"wrong type in an embedded struct names the property alone", `{"level":"2"}`, 400, "field level must be an integer, got string"},
		{"not JSON", `{"name":`, 400, "request body is not valid JSON"},
		{"two values", `{} {}`, 400, "request body is not valid JSON: text after the end of the value"},
		{"trailing text", `{"name":"a"} x`, 400, "request body is not valid JSON"},
		{"too large", `{"name":"` + strings.Repeat("a", MaxBodyBytes) + `"}`, 400, "request body exceeds 1048576 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(url, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, data)
			}
			if tc.status == http.StatusOK {
				if string(data) != tc.want {
					t.Fatalf("decoded %s, want %s", data, tc.want)
				}
				return
			}
			var e model.ErrorBody
			if err := json.Unmarshal(data, &e); err != nil {
				t.Fatalf("error body %s: %v", data, err)
			}
			if e.StatusCode != tc.status || !strings.Contains(e.Message.String(), tc.want) {
				t.Fatalf("error body %+v, want a message containing %q", e, tc.want)
			}
		})
	}
}
