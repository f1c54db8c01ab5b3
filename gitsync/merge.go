package gitsync

import (
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffTimeout bounds one line diff; past it go-diff returns a correct but
// less minimal diff.
const diffTimeout = 500 * time.Millisecond

// hunk replaces base lines [start, end) by lines.
type hunk struct {
	start, end int
	lines      []string
}

// splitLines cuts s into lines that keep their "\n" (the last one may have
// none), so that joining them gives s back byte for byte.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineDiff returns the line-level edit script from a to b (go-diff in line
// mode).
func lineDiff(a, b string) []diffmatchpatch.Diff {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	return dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
}

// hunks turns the diff from base to side into replacement hunks over base
// line numbers.
func hunks(base, side string) []hunk {
	var out []hunk
	pos := 0
	var cur *hunk
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, d := range lineDiff(base, side) {
		ls := splitLines(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			flush()
			pos += len(ls)
		case diffmatchpatch.DiffDelete:
			if cur == nil {
				cur = &hunk{start: pos, end: pos}
			}
			pos += len(ls)
			cur.end = pos
		case diffmatchpatch.DiffInsert:
			if cur == nil {
				cur = &hunk{start: pos, end: pos}
			}
			cur.lines = append(cur.lines, ls...)
		}
	}
	flush()
	return out
}

// touches reports whether hunk h collides with the base region [s, e): they
// overlap, or an insertion sits at the region's edge, where the order of the
// two sides' lines would be a guess.
func touches(h hunk, s, e int) bool {
	if h.start == h.end || s == e {
		return h.start <= e && s <= h.end
	}
	return h.start < e && s < h.end
}

// merge3 merges two texts that both derive from base (see mergeRegions);
// ok is false when the sides changed the same lines differently (the
// caller then keeps both versions whole).
func merge3(base, ours, theirs string) (merged string, ok bool) {
	merged, conflicts := mergeRegions(base, ours, theirs)
	if len(conflicts) > 0 {
		return "", false
	}
	return merged, true
}

// mergeRegions merges two texts that both derive from base, line by line
// (diff3): changes made by one side only are applied, changes both sides
// made identically are applied once, and where the sides changed the same
// lines differently ours is kept and the region is returned as a
// conflict. A revert merges with base the file as the commit left it,
// ours as it is now and theirs as it was before the commit.
func mergeRegions(base, ours, theirs string) (string, []ConflictRegion) {
	switch {
	case ours == base:
		return theirs, nil
	case theirs == base || ours == theirs:
		return ours, nil
	}
	b := splitLines(base)
	side := [2][]hunk{hunks(base, ours), hunks(base, theirs)}
	var out strings.Builder
	var conflicts []ConflictRegion
	pos, oursLine := 0, 0
	next := [2]int{}
	for next[0] < len(side[0]) || next[1] < len(side[1]) {
		first := 0
		if next[0] >= len(side[0]) || (next[1] < len(side[1]) && side[1][next[1]].start < side[0][next[0]].start) {
			first = 1
		}
		h := side[first][next[first]]
		s, e := h.start, h.end
		from := next
		for grown := true; grown; {
			grown = false
			for k := 0; k < 2; k++ {
				for next[k] < len(side[k]) && touches(side[k][next[k]], s, e) {
					hk := side[k][next[k]]
					s, e = min(s, hk.start), max(e, hk.end)
					next[k]++
					grown = true
				}
			}
		}
		for _, l := range b[pos:s] {
			out.WriteString(l)
		}
		oursLine += s - pos
		var versions [2]string
		for k := 0; k < 2; k++ {
			versions[k] = applyHunks(b, s, e, side[k][from[k]:next[k]])
		}
		switch {
		case from[1] == next[1]:
			out.WriteString(versions[0])
		case from[0] == next[0]:
			out.WriteString(versions[1])
		case versions[0] == versions[1]:
			out.WriteString(versions[0])
		default:
			out.WriteString(versions[0])
			conflicts = append(conflicts, ConflictRegion{
				Line:   oursLine + 1,
				Commit: trimLines(b[s:e]),
				Now:    trimLines(splitLines(versions[0])),
				Before: trimLines(splitLines(versions[1])),
			})
		}
		oursLine += len(splitLines(versions[0]))
		pos = e
	}
	for _, l := range b[pos:] {
		out.WriteString(l)
	}
	return out.String(), conflicts
}

// applyHunks returns base region [s, e) with hs (all inside it) applied.
func applyHunks(b []string, s, e int, hs []hunk) string {
	var out strings.Builder
	p := s
	for _, h := range hs {
		for _, l := range b[p:h.start] {
			out.WriteString(l)
		}
		for _, l := range h.lines {
			out.WriteString(l)
		}
		p = h.end
	}
	for _, l := range b[p:e] {
		out.WriteString(l)
	}
	return out.String()
}

// isBinary tells text from binary the way git does: a NUL byte in the first
// 8000 bytes.
func isBinary(data []byte) bool {
	n := min(len(data), 8000)
	for _, c := range data[:n] {
		if c == 0 {
			return true
		}
	}
	return false
}
