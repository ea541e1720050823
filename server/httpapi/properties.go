package httpapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// unknownPropertyError is a request property the target type does not name.
type unknownPropertyError struct {
	// Path locates the property, e.g. "filter.rules[0].colour".
	Path string
	// Allowed lists the properties the enclosing object takes.
	Allowed []string
}

func (e *unknownPropertyError) Error() string {
	return fmt.Sprintf("property %s should not exist (allowed here: %s)", e.Path, strings.Join(e.Allowed, ", "))
}

// duplicatePropertyError is a property given twice in one object, whose
// first value would be lost.
type duplicatePropertyError struct {
	Path string
}

func (e *duplicatePropertyError) Error() string {
	return fmt.Sprintf("property %s is given more than once", e.Path)
}

// checkProperties reads one JSON value from dec, which the caller has
// already decoded into a t without error, and reports the first property
// that t does not name at its place, or that repeats. A nil t accepts
// anything.
func checkProperties(dec *json.Decoder, t reflect.Type, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	t = shapeOf(t)
	if delim == '[' {
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := checkProperties(dec, elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	fields := objectFields(t)
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		at := joinPath(path, name)
		if seen[name] {
			return &duplicatePropertyError{Path: at}
		}
		seen[name] = true
		var next reflect.Type
		if fields != nil {
			f, ok := fields.byName[name]
			if !ok {
				return &unknownPropertyError{Path: at, Allowed: fields.names}
			}
			next = f
		} else if t != nil && t.Kind() == reflect.Map {
			next = t.Elem()
		}
		if err := checkProperties(dec, next, at); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// shapeOf is the type whose properties a JSON value is checked against:
// t without pointers, or nil (anything goes) for interfaces and for types
// that decode themselves.
func shapeOf(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface {
		return nil
	}
	p := reflect.PointerTo(t)
	if p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler) {
		return nil
	}
	return t
}

// fieldSet is the properties a struct type takes, in declaration order.
type fieldSet struct {
	names  []string
	byName map[string]reflect.Type
}

// objectFields lists the JSON properties of struct type t as encoding/json
// names them (tags, promoted fields of embedded structs); nil when t is not
// a struct.
func objectFields(t reflect.Type) *fieldSet {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	fs := &fieldSet{byName: make(map[string]reflect.Type)}
	fs.add(t)
	return fs
}

// add registers t's own properties, then those promoted from its embedded
// structs; a name registered first (a type's own field before an embedded
// one's) wins, as the shallower field does in encoding/json.
func (fs *fieldSet) add(t reflect.Type) {
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			inner := f.Type
			if inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if inner.Kind() == reflect.Struct {
				embedded = append(embedded, inner)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs.put(name, f.Type)
	}
	for _, inner := range embedded {
		fs.add(inner)
	}
}

func (fs *fieldSet) put(name string, t reflect.Type) {
	if _, taken := fs.byName[name]; taken {
		return
	}
	fs.names = append(fs.names, name)
	fs.byName[name] = t
}
