package fs

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadTable(t *testing.T) {
	env := newTestEnv(t)
	dir := env.WorkDir
	lines := make([]string, 3000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	long := writeFile(t, filepath.Join(dir, "long.txt"), strings.Join(lines, "\n")+"\n")
	small := writeFile(t, filepath.Join(dir, "small.go"), "package main\n\nfunc main() {}\n")
	writeFile(t, filepath.Join(dir, "wide.txt"), strings.Repeat("x", 2500)+"\nshort\n")
	writeFile(t, filepath.Join(dir, "empty.txt"), "")
	writeFile(t, filepath.Join(dir, "crlf.txt"), "a\r\nb\r\n")
	writeFile(t, filepath.Join(dir, "bin.dat"), "\x7fELF\x02\x01\x00\x00\x00binary")
	writeFile(t, filepath.Join(dir, "latin1.txt"), strings.Repeat("caf\xe9 \xff\xfe\x80 ", 200))
	big := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 5000) // 320 KB
	writeFile(t, filepath.Join(dir, "big.txt"), big)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)

	cases := []struct {
		name   string
		input  any
		has    []string
		errHas string
	}{
		{name: "whole small file", input: map[string]any{"file_path": small}, has: []string{"     1\tpackage main\n     2\t\n     3\tfunc main() {}"}},
		{name: "default limit 2000", input: map[string]any{"file_path": long}, has: []string{"  2000\tline 2000", "Showing lines 1-2000 of 3000", "offset=2001"}},
		{name: "offset and limit", input: map[string]any{"file_path": long, "offset": 10, "limit": 2}, has: []string{"    10\tline 10\n    11\tline 11\n\n(Showing lines 10-11 of 3000"}},
		{name: "offset float whole", input: `{"file_path":"` + long + `","offset":2999.0}`, has: []string{"  2999\tline 2999\n  3000\tline 3000"}},
		{name: "offset zero means start", input: map[string]any{"file_path": small, "offset": 0, "limit": 1}, has: []string{"     1\tpackage main"}},
		{name: "offset past end", input: map[string]any{"file_path": small, "offset": 50}, errHas: "has 3 lines; offset 50 is past the end"},
		{name: "huge offset", input: map[string]any{"file_path": small, "offset": 1e15}, errHas: `"offset" is too large`},
		{name: "huge limit is fine", input: map[string]any{"file_path": small, "limit": 2147483647}, has: []string{"func main"}},
		{name: "negative offset", input: map[string]any{"file_path": small, "offset": -3}, errHas: `"offset" must be at least 0`},
		{name: "zero limit", input: map[string]any{"file_path": small, "limit": 0}, errHas: `"limit" must be at least 1`},
		{name: "fractional limit", input: map[string]any{"file_path": small, "limit": 2.5}, errHas: "whole number"},
		{name: "offset as string", input: `{"file_path":"` + small + `","offset":"10"}`, errHas: `field "offset" must be a number`},
		{name: "file_path wrong type", input: `{"file_path":42}`, errHas: `field "file_path" must be a string`},
		{name: "missing file_path", input: `{}`, errHas: `"file_path" is missing`},
		{name: "input not an object", input: `["a"]`, errHas: "expected a JSON object"},
		{name: "NUL in path", input: map[string]any{"file_path": small + "\x00.txt"}, errHas: "NUL"},
		{name: "dotdot path resolved", input: map[string]any{"file_path": filepath.Join(dir, "sub", "..", "small.go")}, has: []string{"package main"}},
		{name: "relative path", input: map[string]any{"file_path": "small.go"}, has: []string{"package main"}},
		{name: "relative dotdot missing", input: map[string]any{"file_path": "../../../nonexistent-tandem-file"}, errHas: "File does not exist: /"},
		{name: "directory", input: map[string]any{"file_path": filepath.Join(dir, "sub")}, errHas: "is a directory"},
		{name: "missing with suggestion", input: map[string]any{"file_path": filepath.Join(dir, "smal.go")}, errHas: "Did you mean: " + small},
		{name: "missing other extension", input: map[string]any{"file_path": filepath.Join(dir, "small.py")}, errHas: small},
		{name: "missing folder", input: map[string]any{"file_path": filepath.Join(dir, "nope", "x.go")}, errHas: "does not exist either"},
		{name: "empty file", input: map[string]any{"file_path": filepath.Join(dir, "empty.txt")}, has: []string{"exists but its contents are empty"}},
		{name: "long line cut", input: map[string]any{"file_path": filepath.Join(dir, "wide.txt")}, has: []string{strings.Repeat("x", 2000) + "... [line truncated at 2000 characters]", "     2\tshort"}},
		{name: "crlf shown without CR", input: map[string]any{"file_path": filepath.Join(dir, "crlf.txt")}, has: []string{"     1\ta\n     2\tb"}},
		{name: "binary refused", input: map[string]any{"file_path": filepath.Join(dir, "bin.dat")}, errHas: "binary"},
		{name: "invalid utf8 refused", input: map[string]any{"file_path": filepath.Join(dir, "latin1.txt")}, errHas: "binary"},
		{name: "too large without range", input: map[string]any{"file_path": filepath.Join(dir, "big.txt")}, errHas: "too large to read at once"},
		{name: "large with range", input: map[string]any{"file_path": filepath.Join(dir, "big.txt"), "offset": 4999, "limit": 5}, has: []string{"  5000\t0123"}},
		{name: "pages on text", input: map[string]any{"file_path": small, "pages": "1"}, errHas: "only applies to PDF"},
		{name: "special file refused", input: map[string]any{"file_path": "/dev/null"}, errHas: "not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, NewRead(), env, tc.input)
			if tc.errHas != "" {
				mustErr(t, res, tc.errHas)
				return
			}
			mustOK(t, res)
			for _, h := range tc.has {
				if !strings.Contains(res.Content, h) {
					t.Fatalf("output lacks %q:\n%.600s", h, res.Content)
				}
			}
		})
	}
}

func TestReadOutputCap(t *testing.T) {
	env := newTestEnv(t)
	// 2000 lines of 1500 characters is far beyond the output cap.
	p := writeFile(t, filepath.Join(env.WorkDir, "wide.txt"), strings.Repeat(strings.Repeat("y", 1500)+"\n", 2100))
	res := run(t, NewRead(), env, map[string]any{"file_path": p, "offset": 1, "limit": 2000})
	mustOK(t, res)
	if len(res.Content) > maxReadOutput+4096 || !strings.Contains(res.Content, "Output stopped after line") {
		t.Fatalf("output not capped: %d bytes", len(res.Content))
	}
}

func TestReadStreamsHugeFile(t *testing.T) {
	env := newTestEnv(t)
	p := filepath.Join(env.WorkDir, "huge.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("z", 1023) + "\n"
	for i := 0; i < (maxInMemory/1024)+100; i++ {
		f.WriteString(line)
	}
	f.WriteString(strings.Repeat("w", 10000) + "\nlast\n")
	f.Close()
	n := maxInMemory/1024 + 100
	res := run(t, NewRead(), env, map[string]any{"file_path": p, "offset": n, "limit": 5})
	mustOK(t, res)
	if !strings.Contains(res.Content, fmt.Sprintf("%6d\tzzz", n)) || !strings.Contains(res.Content, "line truncated") || !strings.Contains(res.Content, "\tlast") {
		t.Fatalf("unexpected streamed output: %.300s", res.Content)
	}
	st, ok := TrackerFrom(env).Get(p)
	if !ok || st.Hash != "" || st.Size == 0 {
		t.Fatalf("streamed read not tracked by mtime/size: %+v %v", st, ok)
	}
}

func TestReadImage(t *testing.T) {
	env := newTestEnv(t)
	img := image.NewRGBA(image.Rect(0, 0, 7, 5))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	// The extension lies: content sniffing must still find the PNG.
	p := writeFile(t, filepath.Join(env.WorkDir, "shot.txt"), buf.String())
	res := run(t, NewRead(), env, map[string]any{"file_path": p})
	mustOK(t, res)
	if len(res.Images) != 1 || res.Images[0].MediaType != "image/png" || !strings.Contains(res.Content, "7x5") {
		t.Fatalf("image not returned: %+v", res)
	}
	data, err := base64.StdEncoding.DecodeString(res.Images[0].ImageData)
	if err != nil || !bytes.Equal(data, buf.Bytes()) {
		t.Fatal("image data does not round-trip")
	}
	res = run(t, NewRead(), env, map[string]any{"file_path": p, "pages": "1"})
	mustErr(t, res, "only applies to PDF")
}

func TestReadPDF(t *testing.T) {
	env := newTestEnv(t)
	pages := make([]string, 12)
	for i := range pages {
		pages[i] = fmt.Sprintf("Hello page %d", i+1)
	}
	p := writeFile(t, filepath.Join(env.WorkDir, "doc.pdf"), string(minimalPDF(pages)))
	cases := []struct {
		pages  string
		has    []string
		hasNot []string
		errHas string
	}{
		{pages: "", has: []string{"--- Page 1 of 12 ---", "Hello page 1", "Hello page 10", "Showing pages 1-10 of 12", `pages="11-12"`}, hasNot: []string{"Hello page 11"}},
		{pages: "3", has: []string{"--- Page 3 of 12 ---\nHello page 3"}, hasNot: []string{"Hello page 4"}},
		{pages: "11-12", has: []string{"Hello page 11", "Hello page 12"}},
		{pages: "11-40", has: []string{"Hello page 12"}},
		{pages: "1-25", has: []string{"Hello page 12"}},
		{pages: "0", errHas: "pages start at 1"},
		{pages: "5-2", errHas: "backwards"},
		{pages: "13", errHas: "has 12 pages"},
		{pages: "x-y", errHas: "invalid pages"},
	}
	for _, tc := range cases {
		t.Run("pages="+tc.pages, func(t *testing.T) {
			in := map[string]any{"file_path": p}
			if tc.pages != "" {
				in["pages"] = tc.pages
			}
			res := run(t, NewRead(), env, in)
			if tc.errHas != "" {
				mustErr(t, res, tc.errHas)
				return
			}
			mustOK(t, res)
			for _, h := range tc.has {
				if !strings.Contains(res.Content, h) {
					t.Fatalf("lacks %q:\n%s", h, res.Content)
				}
			}
			for _, h := range tc.hasNot {
				if strings.Contains(res.Content, h) {
					t.Fatalf("has %q:\n%s", h, res.Content)
				}
			}
		})
	}
	broken := writeFile(t, filepath.Join(env.WorkDir, "broken.pdf"), "%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\ngarbage")
	mustErr(t, run(t, NewRead(), env, map[string]any{"file_path": broken}), "Cannot parse PDF")
}

func TestReadRecordsTracker(t *testing.T) {
	env := newTestEnv(t)
	p := writeFile(t, filepath.Join(env.WorkDir, "a.txt"), "hello\n")
	before := time.Now()
	mustOK(t, run(t, NewRead(), env, map[string]any{"file_path": p}))
	st, ok := TrackerFrom(env).Get(canonical(p))
	if !ok || st.Size != 6 || st.Hash != hashBytes([]byte("hello\n")) || st.ReadAt.Before(before) {
		t.Fatalf("tracker state wrong: %+v", st)
	}
	if !NewRead().ReadOnly() {
		t.Fatal("Read must be read-only")
	}
}

func TestPageRange(t *testing.T) {
	cases := []struct {
		spec        string
		n           int
		first, last int
		errHas      string
	}{
		{"", 5, 1, 5, ""}, {"", 50, 1, 10, ""}, {" 2 - 4 ", 10, 2, 4, ""}, {"7", 10, 7, 7, ""},
		{"1-21", 100, 0, 0, "at most 20"}, {"1-20", 100, 1, 20, ""}, {"-3", 10, 0, 0, "invalid"}, {"3-", 10, 0, 0, "invalid"},
	}
	for _, tc := range cases {
		f, l, msg := pageRange(tc.spec, tc.n)
		if tc.errHas != "" {
			if !strings.Contains(msg, tc.errHas) {
				t.Errorf("pageRange(%q,%d) msg %q, want %q", tc.spec, tc.n, msg, tc.errHas)
			}
			continue
		}
		if msg != "" || f != tc.first || l != tc.last {
			t.Errorf("pageRange(%q,%d) = %d,%d,%q want %d,%d", tc.spec, tc.n, f, l, msg, tc.first, tc.last)
		}
	}
}
