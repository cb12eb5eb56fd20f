package fs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"

	"github.com/tandem-agent/tandem/internal/testfiles"
)

func newTestEnv(t testing.TB) *tool.Env {
	t.Helper()
	dir := t.TempDir()
	return tool.NewEnv("test-session", dir, nil, filepath.Join(dir, ".data"))
}

// run calls tl with input (a JSON string or a value to marshal).
func run(t testing.TB, tl tool.Tool, env *tool.Env, input any) tool.Result {
	t.Helper()
	var raw json.RawMessage
	switch v := input.(type) {
	case string:
		raw = json.RawMessage(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	res, err := tl.Execute(context.Background(), tool.Call{ID: "call-1", Name: tl.Name(), Input: raw, Env: env})
	if err != nil {
		t.Fatalf("%s returned a Go error: %v", tl.Name(), err)
	}
	return res
}

func writeFile(t testing.TB, path, content string) string {
	t.Helper()
	return testfiles.Write(t, path, content)
}

// changeOnDisk is another program writing path: new content with a
// modification time later than any the test's own writes had (set, not
// waited for, so a coarse file system clock cannot hide the change).
func changeOnDisk(t testing.TB, path, content string) {
	t.Helper()
	writeFile(t, path, content)
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func readBack(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustOK(t testing.TB, res tool.Result) {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error result: %s", res.Content)
	}
}

func mustErr(t testing.TB, res tool.Result, has string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("expected an error containing %q, got success: %s", has, res.Content)
	}
	if !strings.Contains(res.Content, has) {
		t.Fatalf("error %q does not contain %q", res.Content, has)
	}
}

// minimalPDF builds a valid PDF with one line of text per page, with a
// correct cross-reference table.
func minimalPDF(pages []string) []byte {
	var objs []string
	n := len(pages)
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>")
	objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, text := range pages {
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
