package textmerge

import (
	"fmt"
	"strings"
	"testing"
)

func TestMerge3(t *testing.T) {
	t.Parallel()
	base := "a\nb\nc\nd\ne\nf\ng\n"
	tests := []struct {
		name         string
		ours, theirs string
		want         string
		ok           bool
	}{
		{"only ours", "a\nB\nc\nd\ne\nf\ng\n", base, "a\nB\nc\nd\ne\nf\ng\n", true},
		{"only theirs", base, "a\nb\nc\nd\ne\nF\ng\n", "a\nb\nc\nd\ne\nF\ng\n", true},
		{"different places", "A\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nf\nG\n", "A\nb\nc\nd\ne\nf\nG\n", true},
		{"adjacent lines", "a\nB\nc\nd\ne\nf\ng\n", "a\nb\nC\nd\ne\nf\ng\n", "a\nB\nC\nd\ne\nf\ng\n", true},
		{"same change both sides", "a\nX\nc\nd\ne\nf\ng\n", "a\nX\nc\nd\ne\nf\ng\n", "a\nX\nc\nd\ne\nf\ng\n", true},
		{"same line differently", "a\nX\nc\nd\ne\nf\ng\n", "a\nY\nc\nd\ne\nf\ng\n", "", false},
		{"both append", base + "ours\n", base + "theirs\n", "", false},
		{"append and prepend", "top\n" + base, base + "bottom\n", "top\n" + base + "bottom\n", true},
		{"delete and edit elsewhere", "a\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nf\nG\n", "a\nc\nd\ne\nf\nG\n", true},
		{"delete against edit", "a\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nf\ng\n", "", false},
		{"insert at an edited line", "a\nb\nnew\nc\nd\ne\nf\ng\n", "a\nb\nC\nd\ne\nf\ng\n", "", false},
		{"no final newline kept", "a\nb\nc\nd\ne\nf\ng", "A\nb\nc\nd\ne\nf\ng\n", "A\nb\nc\nd\ne\nf\ng", true},
		{"crlf lines", "a\r\nb\r\nc\r\n", "a\r\nb\r\nC\r\n", "a\r\nb\r\nC\r\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := base
			if strings.Contains(tt.ours, "\r") {
				b = "a\r\nb\r\nc\r\n"
			}
			got, ok := Merge3(b, tt.ours, tt.theirs)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("Merge3 = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
			// The merge is symmetric.
			got2, ok2 := Merge3(b, tt.theirs, tt.ours)
			if ok2 != ok || got2 != got {
				t.Errorf("swapped sides: %q, %v", got2, ok2)
			}
		})
	}
}

func TestMerge3AddAddFromEmptyBase(t *testing.T) {
	t.Parallel()
	if got, ok := Merge3("", "same\n", "same\n"); !ok || got != "same\n" {
		t.Errorf("identical adds: %q %v", got, ok)
	}
	if _, ok := Merge3("", "ours\n", "theirs\n"); ok {
		t.Error("different adds merged")
	}
}

func TestSplitLines(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a", "a\n", "a\nb", "a\n\n", "\n"} {
		if got := strings.Join(SplitLines(s), ""); got != s {
			t.Errorf("SplitLines(%q) joins to %q", s, got)
		}
	}
}

// FuzzMerge3 checks the merge's laws on arbitrary texts: no panic, a side
// equal to the base yields the other side, identical sides yield
// themselves, and swapping sides changes nothing.
func FuzzMerge3(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "a\nb\nC\n")
	f.Add("", "x", "y")
	f.Add("same\n", "same\n", "other\n")
	f.Add("a\r\nb", "a\r\nb\r\n", "A\r\nb")
	f.Fuzz(func(t *testing.T, base, x, y string) {
		if got, ok := Merge3(base, base, x); !ok || got != x {
			t.Fatalf("Merge3(b, b, x) = %q, %v; want x = %q", got, ok, x)
		}
		if got, ok := Merge3(base, x, base); !ok || got != x {
			t.Fatalf("Merge3(b, x, b) = %q, %v; want x = %q", got, ok, x)
		}
		if got, ok := Merge3(base, x, x); !ok || got != x {
			t.Fatalf("Merge3(b, x, x) = %q, %v", got, ok)
		}
		m1, ok1 := Merge3(base, x, y)
		m2, ok2 := Merge3(base, y, x)
		if ok1 != ok2 || m1 != m2 {
			t.Fatalf("not symmetric: %q,%v vs %q,%v", m1, ok1, m2, ok2)
		}
	})
}

// FuzzMerge3Disjoint builds two edits of a base far enough apart (one near
// the top, one near the bottom, over distinct lines) and checks that the
// merge keeps both: nothing lost.
func FuzzMerge3Disjoint(f *testing.F) {
	f.Add("one\ntwo\nthree\nfour\nfive\nsix\n", "first", "last", uint8(0), uint8(5))
	f.Add("a\nb\nc\nd\ne\nf\ng\nh\n", "", "X\nY", uint8(1), uint8(7))
	f.Fuzz(func(t *testing.T, text, top, bottom string, i, j uint8) {
		var lines []string
		for k, l := range strings.Split(text, "\n") {
			lines = append(lines, fmt.Sprintf("%d:%s\n", k, l)) // distinct lines
		}
		if len(lines) < 5 {
			return
		}
		ti := int(i) % (len(lines) / 2)
		bi := len(lines)/2 + 2 + int(j)%max(1, len(lines)-len(lines)/2-2)
		if bi >= len(lines) {
			return
		}
		base := strings.Join(lines, "")
		// ours replaces line ti by new lines; theirs replaces line bi.
		edit := func(at int, repl string, tag string) []string {
			out := append([]string(nil), lines[:at]...)
			if repl != "" {
				for _, l := range strings.Split(repl, "\n") {
					out = append(out, tag+l+"\n")
				}
			}
			return append(out, lines[at+1:]...)
		}
		oursLines, theirsLines := edit(ti, top, "O:"), edit(bi, bottom, "T:")
		ours, theirs := strings.Join(oursLines, ""), strings.Join(theirsLines, "")
		var want []string
		want = append(want, oursLines[:len(oursLines)-(len(lines)-ti-1)]...)
		want = append(want, lines[ti+1:bi]...)
		want = append(want, theirsLines[bi:]...)
		got, ok := Merge3(base, ours, theirs)
		if !ok || got != strings.Join(want, "") {
			t.Fatalf("Merge3 of disjoint edits = %q, %v\nwant %q", got, ok, strings.Join(want, ""))
		}
	})
}

// FuzzMergeRegions checks the three-way merge a revert uses (MergeRegions,
// also under Merge3): it never panics, and the conflict regions it
// reports are lines that exist in our text.
func FuzzMergeRegions(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "a\nb\nC\n")
	f.Add("title\nstatus: review\n", "title\nstatus: done\n", "title\nstatus: draft\n")
	f.Add("x", "y", "z")
	f.Add("", "new\n", "")
	f.Fuzz(func(t *testing.T, base, ours, theirs string) {
		if len(base)+len(ours)+len(theirs) > 1<<14 {
			return
		}
		_, conflicts := MergeRegions(base, ours, theirs)
		lines := SplitLines(ours)
		for _, c := range conflicts {
			if c.Line < 1 || c.Line-1+len(c.Ours) > len(lines) {
				t.Fatalf("region at line %d with %d lines, the text has %d", c.Line, len(c.Ours), len(lines))
			}
			for i, l := range c.Ours {
				if strings.TrimSuffix(strings.TrimSuffix(lines[c.Line-1+i], "\n"), "\r") != l {
					t.Fatalf("region line %d is %q, the text has %q", c.Line+i, l, lines[c.Line-1+i])
				}
			}
		}
	})
}
