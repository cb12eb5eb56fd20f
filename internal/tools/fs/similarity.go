package fs

import "unicode/utf8"

// levenshtein is the edit distance between a and b in runes. Callers bound
// the inputs' length: the cost is len(a)*len(b).
func levenshtein(a, b string) int {
	if a == b {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 {
		return len(rb)
	}
	if len(rb) == 0 {
		return len(ra)
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// maxSimilarityRunes bounds the work of one line comparison.
const maxSimilarityRunes = 400

// similarity is 1 - distance/longer length, in [0,1]; two empty strings are
// not evidence of anything and score 0.
func similarity(a, b string) float64 {
	if a == "" && b == "" {
		return 0
	}
	a, b = truncateRunes(a, maxSimilarityRunes), truncateRunes(b, maxSimilarityRunes)
	longer := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
	return 1 - float64(levenshtein(a, b))/float64(longer)
}
