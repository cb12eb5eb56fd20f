package message

import "testing"

func TestUsageAdd(t *testing.T) {
	full := Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 300, CacheCreationTokens: 40, ReasoningTokens: 5}
	tests := []struct {
		name string
		a, b Usage
		want Usage
	}{
		{name: "zero plus zero", want: Usage{}},
		{name: "zero is neutral", a: full, want: full},
		{name: "every field adds", a: full, b: Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheCreationTokens: 4, ReasoningTokens: 6},
			want: Usage{InputTokens: 101, OutputTokens: 22, CacheReadTokens: 303, CacheCreationTokens: 44, ReasoningTokens: 11}},
		{name: "beyond 32 bits", a: Usage{InputTokens: 3 << 30}, b: Usage{InputTokens: 3 << 30}, want: Usage{InputTokens: 6 << 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Add(tt.b); got != tt.want {
				t.Fatalf("%+v.Add(%+v) = %+v, want %+v", tt.a, tt.b, got, tt.want)
			}
			if got := tt.b.Add(tt.a); got != tt.want {
				t.Fatalf("Add is not symmetric: %+v", got)
			}
		})
	}
	if tt := full.Add(full); full.InputTokens != 100 || tt.InputTokens != 200 {
		t.Fatal("Add must not change its receiver")
	}
}

// TestOnlyEnvelopeAlwaysPresent guards the rule the documented shapes rest
// on: every field but the envelope is omitted when empty.
