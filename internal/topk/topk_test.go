package topk

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSort(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []int
		k    int
		want []int // the first k after Sort
	}{
		{"empty", nil, 3, nil},
		{"k zero", []int{3, 1, 2}, 0, nil},
		{"k past the end", []int{3, 1, 2}, 10, []int{1, 2, 3}},
		{"heap path", []int{9, 4, 7, 1, 8, 2, 6, 3, 5, 0}, 3, []int{0, 1, 2}},
		{"ties", []int{2, 1, 2, 1, 2, 1, 2, 1}, 2, []int{1, 1}},
		{"negative k", []int{2, 1}, -1, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := slices.Clone(tt.in)
			Sort(s, tt.k, cmp.Compare[int])
			got := s[:min(max(tt.k, 0), len(s))]
			if !slices.Equal(got, tt.want) && len(got)+len(tt.want) > 0 {
				t.Errorf("Sort(%v, %d) first = %v, want %v", tt.in, tt.k, got, tt.want)
			}
			if !sameItems(s, tt.in) {
				t.Errorf("Sort(%v, %d) lost or added items: %v", tt.in, tt.k, s)
			}
		})
	}
}

// TestSortMatchesFullSort checks the heap path against a full sort on
// random lists of every small length and page size.
func TestSortMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 40; n++ {
		for k := 0; k <= n; k++ {
			in := make([]int, n)
			for i := range in {
				in[i] = r.IntN(10)
			}
			want := slices.Sorted(slices.Values(in))
			s := slices.Clone(in)
			Sort(s, k, cmp.Compare[int])
			if !slices.Equal(s[:k], want[:k]) {
				t.Fatalf("Sort(%v, %d) first = %v, want %v", in, k, s[:k], want[:k])
			}
		}
	}
}

func sameItems(a, b []int) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
