// Package strictjson makes a JSON decode something a guard can rely on.
// encoding/json matches an object's keys to struct fields ignoring case
// ("Hooks" fills Hooks `json:"hooks"`) and lets a key given twice overwrite,
// or for maps merge into, the first; a check that looks keys up exactly
// would then judge something other than what is applied. Check refuses
// both, so a file is either decoded exactly as written or not at all.
package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Error is a key that would not be read as written: a case variant of a
// field's name, or a key given twice in one object.
type Error struct {
	// Path is where the object holding the key sits ("" for the top level,
	// "permissions", "providers.openai").
	Path string
	Key  string
	// Want is the field's name as tandem reads it (case variants only).
	Want string
}

func (e *Error) Error() string {
	where := "at the top level"
	if e.Path != "" {
		where = "in " + strconv.Quote(e.Path)
	}
	if e.Want != "" {
		return fmt.Sprintf("key %q %s: keys are case-sensitive; write %q", e.Key, where, e.Want)
	}
	return fmt.Sprintf("key %q appears twice %s: keep one of them", e.Key, where)
}

// Field is the dotted name of the offending key ("permissions.Allow").
func (e *Error) Field() string {
	if e.Path == "" {
		return e.Key
	}
	return e.Path + "." + e.Key
}

// Check reports the first key of data that v's type would read other than
// as written. Syntax errors are left to the decode that follows, which
// reports them with their position. Objects decoded into json.RawMessage,
// interfaces or types with their own UnmarshalJSON are checked for
// duplicate keys only; their owners check the rest when they decode them.
func Check(data []byte, v any) error {
	t := reflect.TypeOf(v)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err := walk(dec, t, "")
	if e, ok := err.(*Error); ok {
		return e
	}
	return nil
}

// Unmarshal is Check, then json.Unmarshal.
func Unmarshal(data []byte, v any) error {
	if err := Check(data, v); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// plain is t with pointers removed, or nil when t decodes itself or takes
// anything (interfaces, json.RawMessage).
func plain(t reflect.Type) reflect.Type {
	for t != nil {
		if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
			return nil
		}
		switch t.Kind() {
		case reflect.Pointer:
			t = t.Elem()
		case reflect.Interface:
			return nil
		default:
			return t
		}
	}
	return nil
}

func walk(dec *json.Decoder, t reflect.Type, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	t = plain(t)
	switch tok {
	case json.Delim('{'):
		var fields map[string]reflect.Type
		if t != nil && t.Kind() == reflect.Struct {
			fields = map[string]reflect.Type{}
			structFields(t, fields)
		}
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			if seen[key] {
				return &Error{Path: path, Key: key}
			}
			seen[key] = true
			var sub reflect.Type
			switch {
			case fields != nil:
				if ft, ok := fields[key]; ok {
					sub = ft
				} else if want := fold(fields, key); want != "" {
					return &Error{Path: path, Key: key, Want: want}
				}
			case t != nil && t.Kind() == reflect.Map:
				sub = t.Elem()
			}
			if err := walk(dec, sub, join(path, key)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walk(dec, elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// structFields maps the JSON names of t's fields (embedded structs'
// included, as encoding/json flattens them) to their types.
func structFields(t reflect.Type, out map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if et := plain(f.Type); et != nil && et.Kind() == reflect.Struct {
				structFields(et, out)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := out[name]; !dup {
			out[name] = f.Type
		}
	}
}

// fold is the field name key matches when case is ignored, as
// encoding/json would match it; "" if none.
func fold(fields map[string]reflect.Type, key string) string {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return name
		}
	}
	return ""
}
