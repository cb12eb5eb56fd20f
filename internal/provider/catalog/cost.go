package catalog

import "github.com/tandem-agent/tandem/internal/message"

// Cost prices one call's usage in US dollars, or returns nil when the
// model or its prices are unknown. Usage follows Anthropic's convention,
// which the provider adapters normalise to: InputTokens excludes cache
// reads and cache writes, and reasoning tokens are already inside
// OutputTokens. A call whose prompt (input, cache reads and cache writes)
// is longer than the long-context tier's threshold is priced wholly at
// that tier, as the providers bill it. Cache writes are priced at the
// default (5-minute) lifetime, the one tandem's adapters ask for.
func Cost(info *ModelInfo, u message.Usage) *float64 {
	if info == nil || info.Price == nil {
		return nil
	}
	p := *info.Price
	if t := p.LongContext; t != nil && u.InputTokens+u.CacheReadTokens+u.CacheCreationTokens > t.Above {
		p.Input, p.Output = or(t.Input, p.Input), or(t.Output, p.Output)
		p.CacheRead, p.CacheWrite = or(t.CacheRead, p.CacheRead), or(t.CacheWrite, p.CacheWrite)
	}
	usd := (float64(u.InputTokens)*p.Input +
		float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead +
		float64(u.CacheCreationTokens)*p.CacheWrite) / 1e6
	return &usd
}

func or(tier, base float64) float64 {
	if tier != 0 {
		return tier
	}
	return base
}
