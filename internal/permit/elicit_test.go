package permit

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseElicitationForm(t *testing.T) {
	raw, _ := json.Marshal(ElicitRequest{Server: "s", Mode: "form", Message: "m", Schema: json.RawMessage(`{"type":"object","properties":{
		"zeta":{"type":"string","default":"z","minLength":1},
		"alpha":{"type":"number","maximum":2.5},
		"pick":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},
		"when":{"type":"string","format":"date"},
		"yes":{"type":"boolean"}},"required":["alpha"]}`)})
	_, f, err := ParseElicitation(raw)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fd := range f.Fields {
		names = append(names, fd.Name)
	}
	if strings.Join(names, ",") != "zeta,alpha,pick,when,yes" {
		t.Errorf("the server's order was not kept: %v", names)
	}
	if f.Fields[2].OptionLabel(1) != "B" {
		t.Errorf("enumNames: %+v", f.Fields[2])
	}
	got, err := f.Check(map[string]any{"alpha": 1.5, "pick": "a"})
	if err != nil || got["zeta"] != "z" || got["alpha"] != 1.5 || got["pick"] != "a" || len(got) != 3 {
		t.Errorf("check with a default: %v %v", got, err)
	}
	for values, want := range map[string]string{
		`{}`:                          "alpha: required",
		`{"alpha":3}`:                 "alpha: must be at most 2.5",
		`{"alpha":1,"pick":"c"}`:      `pick: "c" is not one of the choices`,
		`{"alpha":1,"when":"monday"}`: `when: "monday" is not a date`,
		`{"alpha":1,"yes":"true"}`:    "yes: must be true or false",
		`{"alpha":1,"zeta":""}`:       "zeta: must be at least 1 characters",
		`{"alpha":1,"other":1}`:       `"other" is not a field of this form`,
	} {
		var v map[string]any
		_ = json.Unmarshal([]byte(values), &v)
		if _, err := f.Check(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", values, err, want)
		}
	}
	if _, err := f.Fields[1].Parse("abc"); err == nil {
		t.Error("a number field took text")
	}
	if v, err := f.Fields[4].Parse("yes"); err != nil || v != true {
		t.Errorf("boolean parse: %v %v", v, err)
	}
}

func TestParseElicitationRefuses(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"object","properties":{"a":{"type":"array"}}}`:                 `"a" is an array without enum items`,
		`{"type":"object","properties":{"a":{"type":"integer","default":1.5}}}`: "must be a whole number",
		`{"type":"string"}`: "not object",
	} {
		raw, _ := json.Marshal(ElicitRequest{Server: "s", Mode: "form", Schema: json.RawMessage(schema)})
		if _, _, err := ParseElicitation(raw); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", schema, err, want)
		}
	}
	raw, _ := json.Marshal(ElicitRequest{Server: "s", Mode: "url", URL: "javascript:alert(1)"})
	if _, _, err := ParseElicitation(raw); err == nil {
		t.Error("a javascript: URL was taken")
	}
}

func TestElicitationMultiSelect(t *testing.T) {
	raw, _ := json.Marshal(ElicitRequest{Server: "s", Mode: "form", Schema: json.RawMessage(`{"type":"object","properties":{
		"tags":{"type":"array","items":{"anyOf":[{"const":"x","title":"Ex"},{"const":"y","title":"Why"}]},"minItems":1,"maxItems":1,"default":["x"]}}}`)})
	_, f, err := ParseElicitation(raw)
	if err != nil || !f.Fields[0].Multi || f.Fields[0].OptionLabel(1) != "Why" {
		t.Fatalf("%+v %v", f, err)
	}
	if got, err := f.Check(map[string]any{}); err != nil || len(got["tags"].([]any)) != 1 {
		t.Errorf("default: %v %v", got, err)
	}
	if _, err := f.Check(map[string]any{"tags": []any{"x", "y"}}); err == nil || !strings.Contains(err.Error(), "choose at most 1") {
		t.Errorf("maxItems: %v", err)
	}
	if v, err := f.Fields[0].Parse("y"); err != nil || v.([]any)[0] != "y" {
		t.Errorf("parse: %v %v", v, err)
	}
}
