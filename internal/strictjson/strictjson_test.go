package strictjson

import (
	"encoding/json"
	"errors"
	"testing"
)

type inner struct {
	Allow []string          `json:"allow"`
	Env   map[string]string `json:"env"`
}

type doc struct {
	Hooks json.RawMessage  `json:"hooks"`
	Perms inner            `json:"permissions"`
	List  []inner          `json:"list"`
	Map   map[string]inner `json:"map"`
	Ptr   *inner           `json:"ptr"`
	Plain string
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		in, field string
		want      bool // an error is wanted
	}{
		{in: `{"hooks":{"a":1},"permissions":{"allow":["x"]}}`},
		{in: `{"Hooks":{}}`, field: "Hooks", want: true},
		{in: `{"permissions":{"Allow":["Bash"]}}`, field: "permissions.Allow", want: true},
		{in: `{"list":[{"ALLOW":[]}]}`, field: "list[0].ALLOW", want: true},
		{in: `{"map":{"Any":{"allow":[]}}}`},
		{in: `{"map":{"a":{"Env":{}}}}`, field: "map.a.Env", want: true},
		{in: `{"ptr":{"aLLow":[]}}`, field: "ptr.aLLow", want: true},
		{in: `{"plain":"x"}`, field: "plain", want: true},
		{in: `{"Plain":"x"}`},
		{in: `{"hooks":{},"hooks":{}}`, field: "hooks", want: true},
		{in: `{"hooks":{"a":1,"a":2}}`, field: "hooks.a", want: true},
		{in: `{"permissions":{"env":{"K":"1","K":"2"}}}`, field: "permissions.env.K", want: true},
		{in: `{"unknown":{"x":1,"X":1}}`},
		{in: `{"unknown":{"x":1,"x":1}}`, field: "unknown.x", want: true},
		{in: `{"hooks":`}, // syntax errors are the decoder's to report
	} {
		err := Check([]byte(c.in), &doc{})
		var e *Error
		if got := errors.As(err, &e); got != c.want {
			t.Errorf("%s: error %v, want error %v", c.in, err, c.want)
			continue
		}
		if c.want && e.Field() != c.field {
			t.Errorf("%s: field %q, want %q (%v)", c.in, e.Field(), c.field, err)
		}
	}
}
