package structured

import (
	"strings"
	"testing"
)

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name","age"],"additionalProperties":false}`

func TestCheck(t *testing.T) {
	s, err := Compile([]byte(personSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{`{"name":"Ana","age":31}`, "```json\n{\"name\": \"Ana\", \"age\": 31}\n```", ` {"age":0,"name":""} `} {
		if v, err := s.Check(ok); err != nil || !strings.Contains(string(v), `"name"`) {
			t.Errorf("Check(%q) = %s, %v", ok, v, err)
		}
	}
	for bad, want := range map[string]string{
		`{"name":"Ana"}`:                  "conform",
		`{"name":"Ana","age":-1}`:         "conform",
		`{"name":"Ana","age":1,"x":true}`: "conform",
		`Here it is: {"name":"Ana"}`:      "not JSON",
		`{"name":"Ana","age":1} thanks`:   "more than one",
		``:                                "empty",
	} {
		if _, err := s.Check(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%q) error %v, want %q", bad, err, want)
		}
	}
}

func TestCompileRefusesBadSchemas(t *testing.T) {
	for _, bad := range []string{`{"type":`, `{"minimum":"x"}`, `{"$ref":"#/$defs/missing"}`, `[1]`} {
		if _, err := Compile([]byte(bad)); err == nil {
			t.Errorf("Compile(%s) accepted", bad)
		}
	}
}
