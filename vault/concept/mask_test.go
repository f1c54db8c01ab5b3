package concept

import (
	"strings"
	"testing"
)

// The word mask never rules out a concept a query matches: whenever every
// query word starts a word of a text, or the text starts with the query,
// the text's mask has every bit of the query's.
func FuzzWordMask(f *testing.F) {
	for _, s := range [][2]string{
		{"neural network", "neural net"},
		{"convolutional neural network", "network neural"},
		{"k-nn (k.nearest)", "k nearest"},
		{"régression analysis", "re\u0301gression"},
		{"c++ programming", "c++ pro"},
		{"ml.reg.001", "ml.reg.001"},
		{"日本語 テキスト", "日本"},
		{"機械学習", "学習"},
		{"データから学習する", "学習 データ"},
		{"기계학습", "학습"},
		{"การเรียนรู้ของเครื่อง", "เรียนรู้"},
		{"ai学習x", "学習x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, query string) {
		text = Fold(text)
		q := NewQuery(query)
		if q.Empty() {
			return
		}
		if allWords(text, q.words) || strings.HasPrefix(text, q.text) || text == q.text {
			if m := wordMask(text); m&q.mask != q.mask {
				t.Fatalf("text %q, query %q (words %q): mask %x lacks bits of %x", text, q.text, q.words, m, q.mask)
			}
		}
	})
}
