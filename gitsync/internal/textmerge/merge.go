// Package textmerge merges texts line by line: the line diff, its hunks
// over the base's lines, and the three-way merge (diff3) that sync uses
// for notes changed on both sides and a revert uses against later edits.
package textmerge

import (
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffTimeout bounds one line diff; past it go-diff returns a correct but
// less minimal diff.
const diffTimeout = 500 * time.Millisecond

// Hunk replaces base lines [Start, End) by Lines.
type Hunk struct {
	Start, End int
	Lines      []string
}

// SplitLines cuts s into lines that keep their "\n" (the last one may have
// none), so that joining them gives s back byte for byte.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// LineDiff returns the line-level edit script from a to b (go-diff in line
// mode).
func LineDiff(a, b string) []diffmatchpatch.Diff {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	return dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
}

// Hunks turns the diff from base to side into replacement hunks over base
// line numbers.
func Hunks(base, side string) []Hunk {
	var out []Hunk
	pos := 0
	var cur *Hunk
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, d := range LineDiff(base, side) {
		ls := SplitLines(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			flush()
			pos += len(ls)
		case diffmatchpatch.DiffDelete:
			if cur == nil {
				cur = &Hunk{Start: pos, End: pos}
			}
			pos += len(ls)
			cur.End = pos
		case diffmatchpatch.DiffInsert:
			if cur == nil {
				cur = &Hunk{Start: pos, End: pos}
			}
			cur.Lines = append(cur.Lines, ls...)
		}
	}
	flush()
	return out
}

// touches reports whether hunk h collides with the base region [s, e): they
// overlap, or an insertion sits at the region's edge, where the order of the
// two sides' lines would be a guess.
func touches(h Hunk, s, e int) bool {
	if h.Start == h.End || s == e {
		return h.Start <= e && s <= h.End
	}
	return h.Start < e && s < h.End
}

// Merge3 merges two texts that both derive from base (see MergeRegions);
// ok is false when the sides changed the same lines differently (the
// caller then keeps both versions whole).
func Merge3(base, ours, theirs string) (merged string, ok bool) {
	merged, conflicts := MergeRegions(base, ours, theirs)
	if len(conflicts) > 0 {
		return "", false
	}
	return merged, true
}

// MergeRegions merges two texts that both derive from base, line by line
// (diff3): changes made by one side only are applied, changes both sides
// made identically are applied once, and where the sides changed the same
// lines differently ours is kept and the region is returned as a
// conflict. A revert merges with base the file as the commit left it,
// ours as it is now and theirs as it was before the commit.
func MergeRegions(base, ours, theirs string) (string, []Conflict) {
	switch {
	case ours == base:
		return theirs, nil
	case theirs == base || ours == theirs:
		return ours, nil
	}
	b := SplitLines(base)
	side := [2][]Hunk{Hunks(base, ours), Hunks(base, theirs)}
	var out strings.Builder
	var conflicts []Conflict
	pos, oursLine := 0, 0
	next := [2]int{}
	for next[0] < len(side[0]) || next[1] < len(side[1]) {
		first := 0
		if next[0] >= len(side[0]) || (next[1] < len(side[1]) && side[1][next[1]].Start < side[0][next[0]].Start) {
			first = 1
		}
		h := side[first][next[first]]
		s, e := h.Start, h.End
		from := next
		for grown := true; grown; {
			grown = false
			for k := 0; k < 2; k++ {
				for next[k] < len(side[k]) && touches(side[k][next[k]], s, e) {
					hk := side[k][next[k]]
					s, e = min(s, hk.Start), max(e, hk.End)
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
			conflicts = append(conflicts, Conflict{
				Line:   oursLine + 1,
				Base:   TrimLines(b[s:e]),
				Ours:   TrimLines(SplitLines(versions[0])),
				Theirs: TrimLines(SplitLines(versions[1])),
			})
		}
		oursLine += len(SplitLines(versions[0]))
		pos = e
	}
	for _, l := range b[pos:] {
		out.WriteString(l)
	}
	return out.String(), conflicts
}

// Conflict is a run of lines that both sides changed differently, kept
// as ours in the merged text.
type Conflict struct {
	Line   int      // the run's first line in the merged text, from 1
	Base   []string // the base's lines, without their line ends
	Ours   []string // our lines, as the merged text holds them
	Theirs []string // their lines
}

// TrimLines drops the line ends of lines.
func TrimLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
	}
	return out
}

// applyHunks returns base region [s, e) with hs (all inside it) applied.
func applyHunks(b []string, s, e int, hs []Hunk) string {
	var out strings.Builder
	p := s
	for _, h := range hs {
		for _, l := range b[p:h.Start] {
			out.WriteString(l)
		}
		for _, l := range h.Lines {
			out.WriteString(l)
		}
		p = h.End
	}
	for _, l := range b[p:e] {
		out.WriteString(l)
	}
	return out.String()
}

// IsBinary tells text from binary the way git does: a NUL byte in the first
// 8000 bytes.
func IsBinary(data []byte) bool {
	n := min(len(data), 8000)
	for _, c := range data[:n] {
		if c == 0 {
			return true
		}
	}
	return false
}
