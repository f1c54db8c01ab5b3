package tools

import "testing"

// noteText counts characters as ranging over the text as a string does:
// a valid rune is one, and so is each byte of an invalid sequence. The
// cut falls on a character boundary and keeps exactly limit characters.
func TestNoteTextCountsAsAString(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		limit int
	}{
		{"ascii whole", "hello", 10},
		{"ascii cut", "hello world", 5},
		{"accents cut", "été à Paris", 4},
		{"cjk cut", "機械学習の基礎", 3},
		{"emoji cut", "a😀b😀c", 2},
		{"invalid bytes", "a\xffb\xc3c\xe6\x9c", 4},
		{"truncated rune at end", "ab\xe6\x9c", 10},
		{"leading blank lines", "\n \t\r\n\nbody", 2},
		{"exactly the limit", "abc", 3},
		{"empty", "", 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, cut, used := noteText([]byte(tc.body), tc.limit)
			// The reference ranges over the text as a string.
			body := string(trimLeadingBlankLines([]byte(tc.body)))
			want, wantCut, n := body, false, 0
			for i := range body {
				if n == tc.limit {
					want, wantCut = body[:i]+ContentTruncatedNotice, true
					break
				}
				n++
			}
			if got != want || cut != wantCut || used != n {
				t.Errorf("noteText(%q, %d) = %q, %v, %d; want %q, %v, %d", tc.body, tc.limit, got, cut, used, want, wantCut, n)
			}
		})
	}
}
