// Package cachecost models Anthropic's prompt cache over the requests of a
// recorded session, for the benchmarks: each request is taken to read from
// the cache the longest prefix it shares with the previous request
// (system, tools and whole messages, cache_control markers ignored) and to
// write the rest, as Anthropic does with a breakpoint on the last message.
package cachecost

import "encoding/json"

// Cache reads cost 0.1 and writes 1.25 times the input price.
const (
	ReadWeight  = 0.1
	WriteWeight = 1.25
)

// Parts splits a Messages request body into the units a prompt cache
// matches on: system, tools, then each message, without cache_control.
func Parts(body map[string]any) []string {
	enc := func(v any) string { b, _ := json.Marshal(strip(v)); return string(b) }
	parts := []string{enc(body["system"]), enc(body["tools"])}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		parts = append(parts, enc(m))
	}
	return parts
}

// SharedTokens is the size, in estimated tokens (characters / 4), of the
// prefix parts shares with prev: what the request reads from the cache.
func SharedTokens(prev, parts []string) int64 {
	var n int64
	for i := 0; i < len(parts) && i < len(prev) && parts[i] == prev[i]; i++ {
		n += int64(len(parts[i]) / 4)
	}
	return n
}

// Session sums the cache-weighted input of a session's requests, in token
// units (an uncached input token is 1): the first request writes all of
// itself, each later one reads what it shares with the one before and
// writes the rest. bodies are the parsed request bodies and sizes their
// estimated tokens (the raw body's characters / 4).
func Session(bodies []map[string]any, sizes []int64) float64 {
	var units float64
	var prev []string
	for i, b := range bodies {
		parts := Parts(b)
		read := SharedTokens(prev, parts)
		units += float64(read)*ReadWeight + float64(max(sizes[i]-read, 0))*WriteWeight
		prev = parts
	}
	return units
}

func strip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "cache_control" {
				out[k] = strip(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = strip(e)
		}
		return out
	}
	return v
}
