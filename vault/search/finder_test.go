package search

import "testing"

func TestHasHighByte(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"", false}, {"plain ascii text here", false}, {"0123456789abcdef\x80", true},
		{"é", true}, {"12345678é", true}, {"\xff", true},
	} {
		if got := hasHighByte([]byte(tt.in)); got != tt.want {
			t.Errorf("hasHighByte(%q) = %v", tt.in, got)
		}
	}
}
