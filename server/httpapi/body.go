package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
)

// MaxBodyBytes bounds a JSON request body.
const MaxBodyBytes = 1 << 20

// DecodeBody reads the JSON request body of r into v. On a bad body it
// answers 400 with a message naming the problem and reports false; the
// handler then returns without answering again.
//
// Empty-body rule: a body that is empty or only whitespace means the empty
// object {}, every field absent. v is left as it is and the route's own
// checks decide, so a route with a required field answers 400 naming that
// field, and a route whose fields are all optional accepts it.
//
// Strictness: a property v's type does not name (matched exactly, case
// included), at any depth, or a property given twice, is refused with its
// path, e.g. "filter.rules[0].colour". Values whose type decodes itself (a
// json.Unmarshaler such as json.RawMessage) are checked by their owner,
// which decodes them with DecodeValue.
func DecodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			WriteError(w, http.StatusBadRequest, "request body exceeds %d bytes", MaxBodyBytes)
			return false
		}
		WriteError(w, http.StatusBadRequest, "reading the request body failed: %v", err)
		return false
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return true
	}
	if err := DecodeValue(data, v, ""); err != nil {
		WriteError(w, http.StatusBadRequest, "%v", err)
		return false
	}
	return true
}

// DecodeValue decodes data, exactly one JSON value, into v under DecodeBody's
// rules. path is where the value sits in the request body ("template"; ""
// for the body itself) and prefixes the names in error messages. The
// error's text is meant for a 400 answer.
func DecodeValue(data []byte, v any, path string) error {
	if err := decodeJSON(data, v); err != nil {
		return errors.New(describeBodyError(err, reflect.TypeOf(v), path))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := checkProperties(dec, reflect.TypeOf(v), path); err != nil {
		return err
	}
	return nil
}

// errTrailingData is a body holding more than one JSON value.
var errTrailingData = errors.New("text after the end of the value")

// decodeJSON decodes data, which must be exactly one JSON value, into v.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errTrailingData
	}
	return nil
}

// describeBodyError is the 400 message for a value decodeJSON refused
// decoding into a t; path is where the value sits in the body.
func describeBodyError(err error, t reflect.Type, path string) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if field := joinPath(path, propertyPath(t, typeErr.Field)); field != "" {
			return fmt.Sprintf("field %s must be %s, got %s", field, jsonKind(typeErr.Type), typeErr.Value)
		}
		return fmt.Sprintf("request body must be %s, got JSON %s", jsonKind(typeErr.Type), typeErr.Value)
	}
	return fmt.Sprintf("request body is not valid JSON: %v", err)
}

// propertyPath turns the field path of a json.UnmarshalTypeError for a t,
// which names embedded structs by their Go type ("createInboxRequest.ttl"),
// into the property path of the request body ("ttl").
func propertyPath(t reflect.Type, field string) string {
	if field == "" {
		return ""
	}
	var out []string
	for _, name := range strings.Split(field, ".") {
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			t = t.Elem()
		}
		switch {
		case t == nil:
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t.Kind() == reflect.Struct:
			if f, ok := t.FieldByName(name); ok && f.Anonymous && f.Tag.Get("json") == "" {
				continue // promoted fields are t's own properties
			}
			t = objectFields(t).byName[name]
		default:
			t = nil
		}
		out = append(out, name)
	}
	return strings.Join(out, ".")
}

// joinPath names property name inside path.
func joinPath(path, name string) string {
	switch {
	case path == "":
		return name
	case name == "":
		return path
	}
	return path + "." + name
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.String()
}

// IsNull reports a JSON value that is absent (empty) or null.
func IsNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}
