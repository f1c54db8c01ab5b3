package history

import (
	"crypto/sha1"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
)

// fakeLineage is a lineage of n commits in memory: a main line where
// every fifth commit merges a side commit, times a minute apart.
func fakeLineage(n int) *lineage {
	l := newLineage(plumbing.ZeroHash)
	add := func(parents ...plumbing.Hash) plumbing.Hash {
		h := plumbing.Hash(sha1.Sum([]byte(strconv.Itoa(len(l.order)))))
		m := &commitMeta{hash: h, parents: parents, when: time.Unix(int64(len(l.order))*60, 0), author: time.Unix(int64(len(l.order))*60, 0)}
		l.pos[h] = int32(len(l.order))
		l.order = append(l.order, m)
		return h
	}
	prev := add()
	for i := 1; i < n; i++ {
		if i%5 == 0 {
			side := add(prev)
			prev = add(prev, side)
			continue
		}
		prev = add(prev)
	}
	l.head = prev
	return l
}

// FuzzVersionSpec feeds any string to the version resolver: it must
// answer with a commit of the lineage or an error, never panic, and agree
// with a plain walk for HEAD~N.
func FuzzVersionSpec(f *testing.F) {
	for _, s := range []string{"HEAD", "HEAD~3", "HEAD^2", "HEAD~1^2~1", "@~0", "abcd", "2024-01-01", "1970-01-01T00:10:00Z",
		"1970-01-01 00:10", "HEAD~99999999999999", "HEAD^0", "~", "^", "2024-02-30", "deadbeef~2^"} {
		f.Add(s)
	}
	l := fakeLineage(40)
	h := &history{}
	f.Fuzz(func(t *testing.T, spec string) {
		q, err := h.resolve(l, spec)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("%q: empty error", spec)
			}
			return
		}
		if q < 0 || q > l.top() {
			t.Fatalf("%q resolved to position %d of %d", spec, q, len(l.order))
		}
		if n, ok := strings.CutPrefix(strings.TrimSpace(spec), "HEAD~"); ok {
			if k, err := strconv.Atoi(n); err == nil && k >= 0 {
				p := l.top()
				for i := 0; i < k; i++ {
					p = l.pos[l.order[p].parents[0]]
				}
				if p != q {
					t.Fatalf("%q: position %d, a first-parent walk gives %d", spec, q, p)
				}
			}
		}
	})
}

// FuzzUnifiedLines checks that the rendered hunks, applied to the old
// text, give the new one.
func FuzzUnifiedLines(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\nd\n")
	f.Add("", "x\n")
	f.Add("x\n", "")
	f.Add("no newline", "no newline\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a)+len(b) > 1<<14 || strings.ContainsRune(a+b, '\r') || longestLine(a+"\n"+b) >= MaxLineBytes {
			return // a longer line is cut (FuzzCapLine), so the hunks no longer apply
		}
		lines, added, removed := unifiedLines(a, b, diffContext)
		var plus, minus int
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "+"):
				plus++
			case strings.HasPrefix(l, "-"):
				minus++
			}
		}
		if plus != added || minus != removed {
			t.Fatalf("counts +%d -%d, lines +%d -%d:\n%s", added, removed, plus, minus, strings.Join(lines, "\n"))
		}
		if got := applyHunks0(t, a, lines); got != strings.TrimSuffix(b, "\n") {
			t.Fatalf("applying the diff gives %q, want %q:\n%s", got, b, strings.Join(lines, "\n"))
		}
	})
}

// applyHunks0 applies unified hunks to a, comparing text without the final
// newline (the "\ No newline" markers are skipped).
func applyHunks0(t *testing.T, a string, lines []string) string {
	src := strings.Split(strings.TrimSuffix(a, "\n"), "\n")
	if a == "" {
		src = nil
	}
	var out []string
	pos := 0
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@"):
			var start int
			f := strings.Fields(l)[1] // -a,b
			n, _, _ := strings.Cut(strings.TrimPrefix(f, "-"), ",")
			start, _ = strconv.Atoi(n)
			if strings.HasSuffix(f, ",0") {
				start++ // an empty range names the line before it
			}
			for pos < start-1 && pos < len(src) {
				out = append(out, src[pos])
				pos++
			}
		case strings.HasPrefix(l, `\`):
		case strings.HasPrefix(l, "+"):
			out = append(out, l[1:])
		case strings.HasPrefix(l, "-"), strings.HasPrefix(l, " "):
			if pos >= len(src) || src[pos] != l[1:] {
				t.Fatalf("hunk line %q does not match the old text at %d", l, pos)
			}
			if l[0] == ' ' {
				out = append(out, l[1:])
			}
			pos++
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "\n")
}

// longestLine is the length of s's longest line.
func longestLine(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, len(l))
	}
	return n
}

// FuzzCapLine checks that a cut diff line is a prefix of the line, at
// most MaxLineBytes of it plus "…", and valid UTF-8 when the line was.
func FuzzCapLine(f *testing.F) {
	f.Add("short")
	f.Add(strings.Repeat("é", MaxLineBytes))
	f.Add("+" + strings.Repeat("日本", MaxLineBytes))
	f.Add(strings.Repeat("a", MaxLineBytes) + "\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := capLine(s)
		if len(s) <= MaxLineBytes {
			if got != s {
				t.Fatalf("%q changed to %q", s, got)
			}
			return
		}
		kept, ok := strings.CutSuffix(got, "…")
		if !ok || !strings.HasPrefix(s, kept) || len(kept) > MaxLineBytes || len(kept) < MaxLineBytes-utf8.UTFMax {
			t.Fatalf("%q cut to %q", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("valid %q cut to invalid %q", s, got)
		}
	})
}
