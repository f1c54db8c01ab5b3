// Package topk orders the first page of a ranked list without sorting the
// whole list: a query that matches most of a large vault only pays for the
// page it returns.
package topk

import "slices"

// Sort puts the k smallest items of s by cmp first, in order; the rest of
// s is left in no particular order. k larger than len(s) sorts everything.
func Sort[T any](s []T, k int, cmp func(a, b T) int) {
	k = max(0, min(k, len(s)))
	// Past half the list a heap saves nothing over a plain sort.
	if k >= len(s)/2 {
		slices.SortFunc(s, cmp)
		return
	}
	// s[:k] is a max-heap of the k smallest items seen so far.
	down := func(i, n int) {
		for {
			l := 2*i + 1
			if l >= n {
				return
			}
			if r := l + 1; r < n && cmp(s[r], s[l]) > 0 {
				l = r
			}
			if cmp(s[l], s[i]) <= 0 {
				return
			}
			s[i], s[l] = s[l], s[i]
			i = l
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i, k)
	}
	for i := k; i < len(s); i++ {
		if k > 0 && cmp(s[i], s[0]) < 0 {
			s[0], s[i] = s[i], s[0]
			down(0, k)
		}
	}
	slices.SortFunc(s[:k], cmp)
}
