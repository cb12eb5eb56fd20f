package permit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ElicitRequest is an MCP server's question to the user (elicitation/create),
// the input of a question of kind Elicitation: a form to fill (Schema, the
// spec's restricted JSON schema: a flat object of string, number, integer,
// boolean and enum properties) or, in URL mode, a page to open (URL). Its
// text comes from the server and is untrusted: a terminal strips controls
// from it, a browser shows it as text.
type ElicitRequest struct {
	Server  string          `json:"server"`
	Mode    string          `json:"mode"` // "form" or "url"
	Message string          `json:"message"`
	Schema  json.RawMessage `json:"schema,omitempty"`
	URL     string          `json:"url,omitempty"`
	ID      string          `json:"elicitation_id,omitempty"`
}

// Elicitation modes.
const (
	ElicitForm = "form"
	ElicitURL  = "url"
)

// Field is one property of an elicitation form.
type Field struct {
	Name string
	Type string // string, number, integer, boolean, array (Multi)
	// Multi: a multi-select enum (type array of strings from Enum),
	// with MinItems and MaxItems.
	Multi       bool
	MinItems    *int
	MaxItems    *int
	Title       string
	Description string
	Required    bool
	Default     any      // nil: none
	Enum        []string // the values of an enum (type string)
	EnumTitles  []string // their labels (enumNames or oneOf titles), same length
	Format      string   // email, uri, date, date-time
	MinLength   *int
	MaxLength   *int
	Minimum     *float64
	Maximum     *float64
}

// Label is the field's title, or its name.
func (fd Field) Label() string {
	if fd.Title != "" {
		return fd.Title
	}
	return fd.Name
}

// OptionLabel is the label of enum value i.
func (fd Field) OptionLabel(i int) string {
	if i < len(fd.EnumTitles) && fd.EnumTitles[i] != "" {
		return fd.EnumTitles[i]
	}
	return fd.Enum[i]
}

// Form is an elicitation's fields in the order of the schema as it
// arrives (the go-sdk hands it over as a map: sorted by name).
type Form struct {
	Fields []Field
}

// ParseElicitation decodes an elicitation question's input and, in form
// mode, its form, naming what is wrong with either.
func ParseElicitation(raw json.RawMessage) (ElicitRequest, Form, error) {
	var e ElicitRequest
	if err := json.Unmarshal(raw, &e); err != nil {
		return ElicitRequest{}, Form{}, fmt.Errorf("the elicitation is not a JSON object: %w", err)
	}
	switch e.Mode {
	case ElicitURL:
		if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return e, Form{}, fmt.Errorf("MCP server %s asked to open %q, which is not an http(s) URL", e.Server, e.URL)
		}
		return e, Form{}, nil
	case ElicitForm, "":
		f, err := parseForm(e.Schema)
		if err != nil {
			return e, Form{}, fmt.Errorf("MCP server %s sent a form tandem cannot show: %w", e.Server, err)
		}
		return e, f, nil
	}
	return e, Form{}, fmt.Errorf("MCP server %s asked in mode %q: only form and url exist", e.Server, e.Mode)
}

type rawProp struct {
	Type        string            `json:"type"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Default     json.RawMessage   `json:"default"`
	Enum        []json.RawMessage `json:"enum"`
	EnumNames   []string          `json:"enumNames"`
	OneOf       []struct {
		Const json.RawMessage `json:"const"`
		Title string          `json:"title"`
	} `json:"oneOf"`
	Items *struct {
		Type  string            `json:"type"`
		Enum  []json.RawMessage `json:"enum"`
		AnyOf []struct {
			Const json.RawMessage `json:"const"`
			Title string          `json:"title"`
		} `json:"anyOf"`
	} `json:"items"`
	MinItems  *int     `json:"minItems"`
	MaxItems  *int     `json:"maxItems"`
	Format    string   `json:"format"`
	MinLength *int     `json:"minLength"`
	MaxLength *int     `json:"maxLength"`
	Minimum   *float64 `json:"minimum"`
	Maximum   *float64 `json:"maximum"`
}

func parseForm(schema json.RawMessage) (Form, error) {
	if len(bytes.TrimSpace(schema)) == 0 || string(bytes.TrimSpace(schema)) == "null" {
		return Form{}, nil
	}
	var top struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &top); err != nil {
		return Form{}, fmt.Errorf("the schema is not a JSON object: %w", err)
	}
	if top.Type != "" && top.Type != "object" {
		return Form{}, fmt.Errorf("the schema's type is %q, not object", top.Type)
	}
	names, err := objectKeys(top.Properties)
	if err != nil {
		return Form{}, err
	}
	var props map[string]rawProp
	if len(names) > 0 {
		if err := json.Unmarshal(top.Properties, &props); err != nil {
			return Form{}, fmt.Errorf("the schema's properties: %w", err)
		}
	}
	var f Form
	for _, n := range names {
		p := props[n]
		fd := Field{Name: n, Type: p.Type, Title: p.Title, Description: p.Description, Required: slices.Contains(top.Required, n),
			Format: p.Format, MinLength: p.MinLength, MaxLength: p.MaxLength, Minimum: p.Minimum, Maximum: p.Maximum,
			MinItems: p.MinItems, MaxItems: p.MaxItems}
		if p.Type == "array" && p.Items != nil {
			fd.Multi = true
			p.OneOf, p.Enum = p.Items.AnyOf, p.Items.Enum
		}
		for _, c := range p.OneOf {
			var v string
			if json.Unmarshal(c.Const, &v) != nil {
				return Form{}, fmt.Errorf("property %q: a oneOf choice's const is not a string", n)
			}
			fd.Enum, fd.EnumTitles = append(fd.Enum, v), append(fd.EnumTitles, c.Title)
		}
		for i, raw := range p.Enum {
			var v string
			if json.Unmarshal(raw, &v) != nil {
				return Form{}, fmt.Errorf("property %q: enum value %s is not a string", n, raw)
			}
			fd.Enum = append(fd.Enum, v)
			title := ""
			if i < len(p.EnumNames) {
				title = p.EnumNames[i]
			}
			fd.EnumTitles = append(fd.EnumTitles, title)
		}
		switch fd.Type {
		case "string", "number", "integer", "boolean":
		case "array":
			if len(fd.Enum) == 0 {
				return Form{}, fmt.Errorf("property %q is an array without enum items: only multi-select enums are form fields", n)
			}
		default:
			return Form{}, fmt.Errorf("property %q has type %q: a form field is string, number, integer, boolean or a multi-select enum", n, fd.Type)
		}
		if len(fd.Enum) > 0 && fd.Type != "string" && fd.Type != "array" {
			return Form{}, fmt.Errorf("property %q: an enum is of strings", n)
		}
		if len(p.Default) > 0 && string(p.Default) != "null" {
			var d any
			if err := json.Unmarshal(p.Default, &d); err != nil {
				return Form{}, fmt.Errorf("property %q: default: %w", n, err)
			}
			v, err := fd.check(d)
			if err != nil {
				return Form{}, fmt.Errorf("property %q: its default %s: %w", n, p.Default, err)
			}
			fd.Default = v
		}
		f.Fields = append(f.Fields, fd)
	}
	return f, nil
}

// objectKeys lists a JSON object's keys in order (a map would lose the
// order the server chose for its form).
func objectKeys(raw json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("the schema's properties are not a JSON object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("the schema's properties: %w", err)
		}
		k, _ := t.(string)
		if slices.Contains(keys, k) {
			return nil, fmt.Errorf("the schema names property %q twice", k)
		}
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("the schema's property %q: %w", k, err)
		}
	}
	return keys, nil
}

// Check checks accepted form values against the form and returns the
// content to send: each field left out gets its default, as the spec has
// it; a required one with neither is an error naming it, as is a value of
// the wrong type or out of its bounds; a name the form lacks is refused.
// Every problem is named, one per line.
func (f Form) Check(values map[string]any) (map[string]any, error) {
	out := map[string]any{}
	var errs []string
	for name := range values {
		if !slices.ContainsFunc(f.Fields, func(fd Field) bool { return fd.Name == name }) {
			errs = append(errs, fmt.Sprintf("%q is not a field of this form", name))
		}
	}
	for _, fd := range f.Fields {
		v, ok := values[fd.Name]
		if !ok || v == nil {
			if fd.Default != nil {
				out[fd.Name] = fd.Default
			} else if fd.Required {
				errs = append(errs, fmt.Sprintf("%s: required", fd.Label()))
			}
			continue
		}
		cv, err := fd.check(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", fd.Label(), err))
			continue
		}
		out[fd.Name] = cv
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return nil, fmt.Errorf("the form is not valid: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

// Parse turns text typed into a field (a terminal's form) into its value;
// empty text is "left out" (nil), which Check then fills with the default
// or names as required.
func (fd Field) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	switch fd.Type {
	case "number":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return fd.check(n)
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", text)
		}
		return fd.check(float64(n))
	case "array":
		var items []string
		for _, s := range strings.Split(text, ",") {
			if s = strings.TrimSpace(s); s != "" {
				items = append(items, s)
			}
		}
		return fd.check(items)
	case "boolean":
		switch strings.ToLower(text) {
		case "true", "yes", "y":
			return true, nil
		case "false", "no", "n":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not yes or no", text)
	}
	return fd.check(text)
}

// check checks one decoded JSON value and returns it in its JSON type
// (integers as int64).
func (fd Field) check(v any) (any, error) {
	switch fd.Type {
	case "array":
		var items []string
		switch vs := v.(type) {
		case []string:
			items = vs
		case []any:
			for _, x := range vs {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("must be a list of choices")
				}
				items = append(items, s)
			}
		default:
			return nil, fmt.Errorf("must be a list of choices")
		}
		for _, s := range items {
			if !slices.Contains(fd.Enum, s) {
				return nil, fmt.Errorf("%q is not one of the choices", s)
			}
		}
		if fd.MinItems != nil && len(items) < *fd.MinItems {
			return nil, fmt.Errorf("choose at least %d", *fd.MinItems)
		}
		if fd.MaxItems != nil && len(items) > *fd.MaxItems {
			return nil, fmt.Errorf("choose at most %d", *fd.MaxItems)
		}
		out := make([]any, len(items))
		for i, s := range items {
			out[i] = s
		}
		return out, nil
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("must be true or false")
		}
		return b, nil
	case "number", "integer":
		n, ok := v.(float64)
		if !ok {
			if i, isInt := v.(int64); isInt {
				n, ok = float64(i), true
			} else if i, isInt := v.(int); isInt {
				n, ok = float64(i), true
			}
		}
		if !ok {
			return nil, fmt.Errorf("must be a number")
		}
		if fd.Type == "integer" && n != math.Trunc(n) {
			return nil, fmt.Errorf("must be a whole number")
		}
		if fd.Minimum != nil && n < *fd.Minimum {
			return nil, fmt.Errorf("must be at least %v", *fd.Minimum)
		}
		if fd.Maximum != nil && n > *fd.Maximum {
			return nil, fmt.Errorf("must be at most %v", *fd.Maximum)
		}
		if fd.Type == "integer" {
			return int64(n), nil
		}
		return n, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("must be text")
	}
	if len(fd.Enum) > 0 {
		if !slices.Contains(fd.Enum, s) {
			return nil, fmt.Errorf("%q is not one of the choices", s)
		}
		return s, nil
	}
	n := len([]rune(s))
	if fd.MinLength != nil && n < *fd.MinLength {
		return nil, fmt.Errorf("must be at least %d characters", *fd.MinLength)
	}
	if fd.MaxLength != nil && n > *fd.MaxLength {
		return nil, fmt.Errorf("must be at most %d characters", *fd.MaxLength)
	}
	switch fd.Format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return nil, fmt.Errorf("%q is not an email address", s)
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return nil, fmt.Errorf("%q is not a URI", s)
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return nil, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return nil, fmt.Errorf("%q is not a date and time (RFC 3339)", s)
		}
	}
	return s, nil
}
