package edit

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"vaultmcp/vault/markdown"
)

// PathSeparator joins the headings of a heading path, outermost first:
// "Projects::Active" is the "Active" heading inside "Projects".
const PathSeparator = "::"

// heading is one heading of a note with the lines its section covers.
type heading struct {
	level  int
	text   string
	line   int // index of its first line
	body   int // index of the first line after it (a setext heading has two or more)
	end    int // index of the line that starts the next heading of the same or a higher level, or len(lines)
	parent int // index of the enclosing heading, -1 at the top
}

// outline lists a note's headings in order. The parser decides what is a
// heading: a "#" line in code, a comment or a block quote is not one.
func outline(src []byte, lines []line, n *markdown.Note) []heading {
	hs := make([]heading, 0, len(n.Headings))
	for _, h := range n.Headings {
		i := h.Line - 1
		if i < 0 || i >= len(lines) {
			continue
		}
		hs = append(hs, heading{level: h.Level, text: h.Text, line: i, body: headingBody(src, lines, i), end: len(lines), parent: -1})
	}
	var stack []int
	for i := range hs {
		for len(stack) > 0 && hs[stack[len(stack)-1]].level >= hs[i].level {
			hs[stack[len(stack)-1]].end = hs[i].line
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			hs[i].parent = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	return hs
}

// headingBody returns the index of the line after the heading starting
// at line i: the next line for an ATX heading ("## Text"), the line after
// the underline for a setext heading ("Text" over "===" or "---").
func headingBody(src []byte, lines []line, i int) int {
	t := bytes.TrimLeft(lines[i].text(src), " \t")
	t = trimListMarkers(t)
	if bytes.HasPrefix(t, []byte("#")) {
		return i + 1
	}
	for j := i + 1; j < len(lines); j++ {
		u := bytes.TrimSpace(lines[j].text(src))
		if len(u) == 0 {
			break
		}
		if setextUnderline(u) {
			return j + 1
		}
	}
	return i + 1
}

// trimListMarkers drops the list markers ("- ", "1. ") a heading inside a
// list item is written after.
func trimListMarkers(t []byte) []byte {
	for {
		switch {
		case len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t'):
			t = bytes.TrimLeft(t[2:], " \t")
			continue
		}
		d := 0
		for d < len(t) && d < 9 && t[d] >= '0' && t[d] <= '9' {
			d++
		}
		if d > 0 && d+1 < len(t) && (t[d] == '.' || t[d] == ')') && (t[d+1] == ' ' || t[d+1] == '\t') {
			t = bytes.TrimLeft(t[d+2:], " \t")
			continue
		}
		return t
	}
}

func setextUnderline(u []byte) bool {
	if len(u) == 0 || (u[0] != '=' && u[0] != '-') {
		return false
	}
	for _, c := range u {
		if c != u[0] {
			return false
		}
	}
	return true
}

// path returns the heading's path from the top, e.g. "Projects::Active".
func headingPath(hs []heading, i int) string {
	parts := []string{hs[i].text}
	for p := hs[i].parent; p >= 0; p = hs[p].parent {
		parts = append(parts, hs[p].text)
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	return strings.Join(parts, PathSeparator)
}

// findHeading resolves a heading target: a heading's text, or a path of
// headings "Outer::Inner" where each part is an enclosing heading (not
// necessarily the immediate parent) of the next. Text is compared as
// written; only when nothing matches so is it compared ignoring case and
// leading "#"s. The target must name exactly one heading. Headings that
// share one path are told apart as the ambiguity error lists them, by the
// line after the path: "Log::Notes (line 12)".
func findHeading(hs []heading, target string) (int, error) {
	if strings.TrimSpace(target) == "" {
		return -1, invalid("target is empty: give the heading's text, or a path like \"Projects::Active\"")
	}
	found := matchHeadings(hs, target)
	if len(found) == 0 {
		if named, line, ok := cutLine(target); ok {
			same := matchHeadings(hs, named)
			for _, i := range same {
				if hs[i].line+1 == line {
					return i, nil
				}
			}
			if len(same) > 0 {
				// The note changed since the line was listed: list where
				// those headings are now.
				return -1, withCandidates(ErrNotFound, listed(hs, same),
					"heading %q not found: no heading %q is at line %d now; they are", target, named, line)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		all := make([]string, len(hs))
		for i := range hs {
			all[i] = headingPath(hs, i)
		}
		if len(hs) == 0 {
			return -1, withCandidates(ErrNotFound, all, "heading %q not found: the note has no headings", target)
		}
		return -1, withCandidates(ErrNotFound, all, "heading %q not found; the note's headings are", target)
	}
	return -1, withCandidates(ErrAmbiguous, listed(hs, found),
		"heading %q occurs %d times; name it by its path of headings (joined by %q), or as listed here with its line, to pick one", target, len(found), PathSeparator)
}

// listed names each of the headings found by its path and line, as a
// target may name it.
func listed(hs []heading, found []int) []string {
	cands := make([]string, len(found))
	for k, i := range found {
		cands[k] = fmt.Sprintf("%s (line %d)", headingPath(hs, i), hs[i].line+1)
	}
	return cands
}

// matchHeadings returns the headings target names (see findHeading), in
// the order of the note.
func matchHeadings(hs []heading, target string) []int {
	parts := strings.Split(target, PathSeparator)
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	var found []int
	for _, loose := range []bool{false, true} {
		for i := range hs {
			if matchPath(hs, i, parts, loose) {
				found = append(found, i)
			}
		}
		if len(found) > 0 {
			return found
		}
	}
	if len(parts) > 1 {
		// A heading whose own text holds the separator ("## A::B") is
		// named by that text, or by its path as the candidates list it
		// ("H::A::B"); split into parts, neither matches.
		whole := strings.TrimSpace(target)
		for i := range hs {
			if hs[i].text == whole || headingPath(hs, i) == whole {
				found = append(found, i)
			}
		}
	}
	return found
}

// cutLine splits a target written as an ambiguity error lists a heading,
// "Log::Notes (line 12)", into the heading's path and its line.
func cutLine(target string) (named string, line int, ok bool) {
	target = strings.TrimSpace(target)
	rest, found := strings.CutSuffix(target, ")")
	if !found {
		return "", 0, false
	}
	i := strings.LastIndex(rest, " (line ")
	if i < 0 {
		return "", 0, false
	}
	line, err := strconv.Atoi(rest[i+len(" (line "):])
	if err != nil || line < 1 {
		return "", 0, false
	}
	return rest[:i], line, true
}

// matchPath reports whether heading i is named by parts: its text matches
// the last part, and the earlier parts match enclosing headings, in order.
func matchPath(hs []heading, i int, parts []string, loose bool) bool {
	last := len(parts) - 1
	if !sameHeading(hs[i].text, parts[last], loose) {
		return false
	}
	k := last - 1
	for p := hs[i].parent; p >= 0 && k >= 0; p = hs[p].parent {
		if sameHeading(hs[p].text, parts[k], loose) {
			k--
		}
	}
	return k < 0
}

func sameHeading(text, want string, loose bool) bool {
	if !loose {
		return text == want
	}
	want = strings.TrimSpace(strings.TrimLeft(want, "#"))
	return strings.EqualFold(strings.TrimSpace(text), want)
}
