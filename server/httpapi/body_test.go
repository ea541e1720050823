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
	type request struct {
		Name  string `json:"name"`
		Count *int   `json:"count"`
		Tags  []string
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
		{"unknown properties are ignored", `{"name":"a","colour":"red"}`, 200, `{"name":"a","count":null,"Tags":null}`},
		{"wrong type names the field and the kind", `{"count":"2"}`, 400, "field count must be an integer, got string"},
		{"wrong type in an array", `{"Tags":[1]}`, 400, "field Tags must be a string, got number"},
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
