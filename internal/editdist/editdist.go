// Package editdist measures how far apart two short names are, for the
// "did you mean" suggestions of tools that did not find what was asked.
//
// The distance is the optimal string alignment distance in runes:
// insertions, deletions and substitutions cost one edit each, and so does
// swapping two neighbouring runes, the typo people make most ("dataveiw").
package editdist

// Within returns the distance between a and b, or max+1 as soon as it is
// sure to exceed max. Suggestions only care about small distances, and the
// early exit keeps a scan of every name in a large vault cheap.
func Within(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > max || -d > max {
		return max + 1
	}
	// Three rows: the swap looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		// Every later row is at least this row's minimum.
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
