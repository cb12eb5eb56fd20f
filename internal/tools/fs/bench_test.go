package fs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// bigSource is a 20k-line Go-like file of distinct functions.
func bigSource() string {
	var b strings.Builder
	for i := 0; i*8 < 20000; i++ {
		fmt.Fprintf(&b, "func handler%05d(ctx context.Context, req *Request) error {\n", i)
		fmt.Fprintf(&b, "\tif req == nil {\n\t\treturn errNil\n\t}\n")
		fmt.Fprintf(&b, "\tvalue := compute(req.Field%d, %d)\n", i%7, i)
		fmt.Fprintf(&b, "\treturn store(ctx, value)\n}\n\n")
	}
	return b.String()
}

// BenchmarkEditFuzzy20k measures an Edit whose old_string only matches
// tolerantly (de-indented, and for the context-aware case with a changed
// line) on a 20k-line file, through the whole tool: read, match, diff, write.
func BenchmarkEditFuzzy20k(b *testing.B) {
	for _, tc := range []struct {
		name     string
		old, new string
	}{
		{"trimmed-lines",
			"value := compute(req.Field2, 1500)\nreturn store(ctx, value)",
			"value := compute(req.Field2, 1500) + 1\nreturn store(ctx, value)"},
		{"context-aware",
			"func handler01500(ctx context.Context, req *Request) error {\nif req == nil {\nreturn errNil\n}\nvalue := somethingElseEntirely(abc)\nreturn store(ctx, value)\n}",
			"func handler01500(ctx context.Context, req *Request) error {\nif req == nil {\nreturn errNil\n}\nvalue := compute(req.Field2, 1500)\nreturn store(ctx, value)\n}"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			env := newTestEnv(b)
			p := writeFile(b, filepath.Join(env.WorkDir, "big.go"), bigSource())
			mustOK(b, run(b, NewRead(), env, map[string]any{"file_path": p, "offset": 1, "limit": 10}))
			// Make the first edit so that the file holds tc.new's version;
			// then alternate between two fuzzy edits.
			old, new := tc.old, tc.new
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := run(b, NewEdit(), env, map[string]any{"file_path": p, "old_string": old, "new_string": new})
				if res.IsError || res.Meta["matcher"] == exactMatcher {
					b.Fatalf("iteration %d: %v %s", i, res.Meta["matcher"], res.Content)
				}
				if tc.name == "trimmed-lines" {
					old, new = new, old
				} else {
					new = strings.Replace(tc.new, "1500)", fmt.Sprintf("1500) // v%d", i), 1)
				}
			}
		})
	}
}
