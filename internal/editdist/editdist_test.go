package editdist

import "testing"

// osa is the textbook optimal-string-alignment distance, without an early
// exit, for checking Within.
func osa(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func TestWithin(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		max  int
		want int
	}{
		{"dataview", "dataview", 1, 0},
		{"dataview", "dataveiw", 1, 1}, // a swap is one edit
		{"canvas", "canvs", 1, 1},
		{"canvas", "xyz", 1, 2}, // over max: max+1
		{"", "ab", 2, 2},
		{"", "abc", 3, 3},
		{"café", "cafe", 1, 1}, // runes, not bytes
		{"é", "e", 3, 1},
		{"regresion", "regression", 3, 1},
		{"linear", "lineal", 3, 1},
		{"ab", "abcdefgh", 3, 4}, // lengths alone exceed max
	} {
		if got := Within(tt.a, tt.b, tt.max); got != tt.want {
			t.Errorf("Within(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.max, got, tt.want)
		}
	}
}

// FuzzWithin holds Within to the textbook distance: exact up to max, and
// above max exactly when the true distance is.
func FuzzWithin(f *testing.F) {
	f.Add("dataview", "dataveiw", 1)
	f.Add("", "", 0)
	f.Add("ab", "ba", 2)
	f.Add("Ünïcödé", "unicode", 3)
	f.Fuzz(func(t *testing.T, a, b string, max int) {
		if len(a) > 64 || len(b) > 64 {
			return
		}
		max = int(uint(max)>>1) % 5
		got, want := Within(a, b, max), osa(a, b)
		if want <= max && got != want || want > max && got <= max {
			t.Fatalf("Within(%q, %q, %d) = %d, true distance %d", a, b, max, got, want)
		}
	})
}
