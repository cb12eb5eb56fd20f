package provider

import (
	"strings"
	"testing"
)

func TestToolCacheBounded(t *testing.T) {
	var c ToolCache[int]
	builds := 0
	build := func(s []ToolSpec) (int, error) { builds++; return len(s), nil }
	sets := make([][]ToolSpec, maxToolSets+2)
	for i := range sets {
		sets[i] = []ToolSpec{{Name: strings.Repeat("t", i+1)}}
		if _, err := c.Get(sets[i], build); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.entries) != maxToolSets || builds != len(sets) {
		t.Fatalf("entries %d builds %d", len(c.entries), builds)
	}
	_, _ = c.Get(sets[len(sets)-1], build)
	if builds != len(sets) {
		t.Error("recent set rebuilt")
	}
	_, _ = c.Get(sets[0], build)
	if builds != len(sets)+1 {
		t.Error("evicted set served")
	}
}
