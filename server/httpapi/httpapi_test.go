package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"sandview/model"
)

func TestWriteErrorBody(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteError(rec, http.StatusNotFound, "inbox %s not found", "a@b.test")
	var body model.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 404 || body.StatusCode != 404 || body.Error != "Not Found" || body.Message.String() != "inbox a@b.test not found" {
		t.Fatalf("status %d, body %+v", rec.Code, body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
}

func TestWriteJSONFallsBackToAnError(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteJSON(rec, http.StatusOK, map[string]any{"bad": func() {}})
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500 for a value JSON cannot encode", rec.Code)
	}
	rec = httptest.NewRecorder()
	WriteJSON(rec, http.StatusCreated, map[string]int{"n": 1})
	if rec.Code != http.StatusCreated || rec.Body.String() != `{"n":1}` {
		t.Fatalf("status %d, body %s", rec.Code, rec.Body)
	}
}
