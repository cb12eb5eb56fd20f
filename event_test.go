package tandem

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/runtimes"
)

// fill sets every field of v (a pointer) to a non-zero value.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			fill(v.Field(i), n)
		}
	case reflect.String:
		v.SetString("s" + strconv.Itoa(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`{"k":` + strconv.Itoa(*n) + `}`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(s.Index(0), n)
		fill(s.Index(1), n)
		v.Set(s)
	case reflect.Map:
		v.Set(reflect.ValueOf(map[string]any{"k": "v" + strconv.Itoa(*n)}))
	default:
		panic("fill: add a case for " + v.Kind().String())
	}
}

// TestPublicEventCarriesEveryField fails when a field is added to the
// internal event and not to the public copy (or not copied).
func TestPublicEventCarriesEveryField(t *testing.T) {
	var in event.Event
	n := 0
	fill(reflect.ValueOf(&in).Elem(), &n)
	want, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(publicEvent(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("the public event's JSON differs from the internal one's:\n got %s\nwant %s", got, want)
	}
	if a, b := reflect.TypeFor[Event]().NumField(), reflect.TypeFor[event.Event]().NumField(); a != b {
		t.Errorf("public Event has %d fields, internal %d", a, b)
	}
}

// constValues returns the string constants of type typ declared in file.
func constValues(t *testing.T, file, typ string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			id, ok := vs.Type.(*ast.Ident)
			if !ok || id.Name != typ {
				continue
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, s)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestPublicEventTypesMatchTheContract(t *testing.T) {
	internal := constValues(t, "internal/event/event.go", "Type")
	public := constValues(t, "event.go", "EventType")
	if len(internal) < 10 {
		t.Fatalf("found only %d internal event types: the parser no longer matches the file", len(internal))
	}
	if !slices.Equal(internal, public) {
		t.Errorf("event types differ:\ninternal %v\npublic   %v", internal, public)
	}
	for _, s := range []struct{ pub, in string }{
		{SubtypeSuccess, event.SubtypeSuccess}, {SubtypeMaxTurns, event.SubtypeMaxTurns},
		{SubtypeMaxBudget, event.SubtypeMaxBudget},
		{SubtypeInterrupted, event.SubtypeInterrupted}, {SubtypeError, event.SubtypeError},
		{SubtypeProviderError, event.SubtypeProviderError}, {SubtypePermissionDenied, event.SubtypePermissionDenied},
	} {
		if s.pub != s.in {
			t.Errorf("subtype %q is %q inside", s.pub, s.in)
		}
	}
}

// The public runtimes and modes are the core's lists, in their order.
func TestPublicRuntimesAndModesAreAccepted(t *testing.T) {
	var public, core []string
	for _, r := range []Runtime{RuntimeNative, RuntimeClaudeCode, RuntimeAuto} {
		public = append(public, string(r))
	}
	for _, r := range runtimes.Names() {
		core = append(core, string(r))
	}
	if !slices.Equal(public, core) {
		t.Errorf("public runtimes %v, the core's %v", public, core)
	}
	var modes, coreModes []string
	for _, m := range []PermissionMode{ModeExplore, ModeNormal, ModeAcceptEdits, ModeTrust, ModeDontAsk} {
		modes = append(modes, string(m))
	}
	for _, m := range permission.Modes() {
		coreModes = append(coreModes, string(m))
	}
	if !slices.Equal(modes, coreModes) {
		t.Errorf("public modes %v, the core's %v", modes, coreModes)
	}
}
