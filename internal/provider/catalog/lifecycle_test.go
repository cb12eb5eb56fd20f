package catalog

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// The default of each provider whose key tandem looks for is a model
// that works today. This test fails on the day the catalog's own
// retirement date for a default passes: then the catalog needs updating.
func TestDefaultsActiveToday(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, prov := range []string{"anthropic", "openai", "gemini", "bedrock", "vertex"} {
		id := c.Default(prov)
		r, err := c.Resolve(prov + "/" + id)
		if err != nil || r.Info == nil {
			t.Fatalf("default %s/%s: %v", prov, id, err)
		}
		for _, now := range []time.Time{c.Date(), time.Now()} {
			if st := r.Info.StatusAt(now); st != Active {
				t.Errorf("default %s/%s is %s on %s: update the catalog's defaults", prov, id, st, now.Format(time.DateOnly))
			}
		}
		for alias, target := range c.Aliases(prov) {
			r, err := c.Resolve(prov + "/" + alias)
			if err != nil || r.Info == nil || r.Info.ID != target {
				t.Fatalf("%s/%s: %+v %v", prov, alias, r, err)
			}
			if st := r.Info.StatusAt(time.Now()); st == Retired {
				t.Errorf("alias %s/%s names %s, retired", prov, alias, target)
			}
		}
	}
}

func TestCheckLifecycle(t *testing.T) {
	c, _ := Load()
	res := func(spec string) Resolved {
		r, err := c.Resolve(spec)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Retired on the Anthropic API: refused, naming the replacement and its short name.
	_, err := c.Check(res("anthropic/claude-sonnet-4-5"), day("2026-12-01"))
	want := "claude-sonnet-4-5 was retired on 2026-11-30 on the Anthropic API; use claude-sonnet-5-5 (--model sonnet)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	// A deprecated model works with a notice until its date, then is refused.
	n, err := c.Check(res("claude-opus-4-5"), day("2026-12-01"))
	if err != nil || !strings.Contains(n, "deprecated") || !strings.Contains(n, "2027-01-22") || !strings.Contains(n, "--model opus") {
		t.Errorf("opus 4.5 in December: %q %v", n, err)
	}
	if _, err := c.Check(res("claude-opus-4-5"), day("2027-01-22")); err == nil {
		t.Error("opus 4.5 on its retirement day: no error")
	}
	// Legacy: a notice. Active: nothing.
	if n, err := c.Check(res("claude-sonnet-5"), day("2026-12-01")); err != nil || !strings.Contains(n, "legacy") {
		t.Errorf("sonnet 5: %q %v", n, err)
	}
	if n, err := c.Check(res("sonnet"), day("2026-12-01")); err != nil || n != "" {
		t.Errorf("sonnet: %q %v", n, err)
	}
	// The cloud's copy is not retired by the first party's date; a proxy
	// serving the id gets a notice, not a refusal.
	for _, spec := range []string{"bedrock/claude-sonnet-4-5", "work/claude-sonnet-4-5"} {
		if n, err := c.Check(res(spec), day("2026-12-01")); err != nil || n == "" {
			t.Errorf("%s: %q %v", spec, n, err)
		}
	}
}

func TestStale(t *testing.T) {
	c, _ := Load()
	if c.Stale(c.Date().AddDate(0, 5, 0)) || !c.Stale(c.Date().AddDate(0, 6, 1)) {
		t.Error("six months is the limit")
	}
}

// Figures computed by hand from the catalog's prices.
func TestCostTiers(t *testing.T) {
	c, _ := Load()
	info := func(spec string) *ModelInfo {
		r, err := c.Resolve(spec)
		if err != nil || r.Info == nil {
			t.Fatal(spec, err)
		}
		return r.Info
	}
	tests := []struct {
		spec string
		u    message.Usage
		want float64
	}{
		// Sonnet 5.5: $2 in, $10 out, $0.20 read, $2.50 write (5 min).
		// 10,000*2 + 2,000*10 + 50,000*0.2 + 4,000*2.5 = 60,000 → $0.06
		{"sonnet", message.Usage{InputTokens: 10000, OutputTokens: 2000, CacheReadTokens: 50000, CacheCreationTokens: 4000}, 0.06},
		// GPT-6.2 Sol at 200,000 prompt tokens (under 272K): 150,000*2 +
		// 50,000*0.10 + 1,000*10 = 315,000 → $0.315
		{"openai/gpt-6.2-sol", message.Usage{InputTokens: 150000, CacheReadTokens: 50000, OutputTokens: 1000}, 0.315},
		// Above 272K the whole call is at the tier: input $4, cached $0.20,
		// output $15: 200,000*4 + 100,000*0.2 + 1,000*15 = 835,000 → $0.835
		{"openai/gpt-6.2-sol", message.Usage{InputTokens: 200000, CacheReadTokens: 100000, OutputTokens: 1000}, 0.835},
		// Haiku 5.5 above 100K prompt tokens: $0.50 in, $2.50 out, $0.05
		// read, $0.625 write: 100,000*0.5 + 20,000*0.05 + 10,000*0.625 +
		// 1,000*2.5 = 59,750 → $0.05975
		{"haiku", message.Usage{InputTokens: 100000, CacheReadTokens: 20000, CacheCreationTokens: 10000, OutputTokens: 1000}, 0.05975},
		// and at 100,000 exactly, the base: 90,000*0.1 + 10,000*0.01 + 1,000*0.5 = 9,600 → $0.0096
		{"haiku", message.Usage{InputTokens: 90000, CacheReadTokens: 10000, OutputTokens: 1000}, 0.0096},
	}
	for _, tt := range tests {
		got := Cost(info(tt.spec), tt.u)
		if got == nil || math.Abs(*got-tt.want) > 1e-9 {
			t.Errorf("%s %+v: got %v, want %v", tt.spec, tt.u, got, tt.want)
		}
	}
}
