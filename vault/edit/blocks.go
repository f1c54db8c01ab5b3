package edit

import (
	"bytes"
	"fmt"
	"strings"

	"vaultmcp/vault/markdown"
)

// block is the run of lines a ^block-id marks.
type block struct {
	id    string
	start int // first line of the block
	end   int // line after the block's last line of content
	// idLine is the line the id is written on: end-1 when the id ends
	// the block's last line ("text ^id"), else a line of its own after
	// the block, right below it or after a blank line (how Obsidian
	// marks tables, lists and quotes).
	idLine int
	// paragraph: the block is plain text, not a list item, table or
	// quote, so lines added right next to it would join it.
	paragraph bool
}

// inline reports whether the id is written at the end of the block's
// last line.
func (b block) inline() bool { return b.idLine == b.end-1 }

// findBlock resolves a block target ("^id" or "id").
func findBlock(src []byte, lines []line, n *markdown.Note, hs []heading, target string) (block, error) {
	id := strings.TrimPrefix(strings.TrimSpace(target), "^")
	if id == "" {
		return block{}, invalid("target is empty: give the block id, e.g. \"^summary\"")
	}
	var found []int
	for _, fold := range []bool{false, true} {
		for i, b := range n.BlockIDs {
			if b == id || (fold && strings.EqualFold(b, id)) {
				found = append(found, i)
			}
		}
		if len(found) > 0 {
			break
		}
	}
	switch len(found) {
	case 0:
		all := make([]string, len(n.BlockIDs))
		for i, b := range n.BlockIDs {
			all[i] = "^" + b
		}
		if len(all) == 0 {
			return block{}, withCandidates(ErrNotFound, all, "block ^%s not found: the note has no block ids", id)
		}
		return block{}, withCandidates(ErrNotFound, all, "block ^%s not found; the note's block ids are", id)
	case 1:
	default:
		cands := make([]string, len(found))
		for k, i := range found {
			cands[k] = fmt.Sprintf("^%s (line %d)", n.BlockIDs[i], n.BlockLines[i])
		}
		return block{}, withCandidates(ErrAmbiguous, cands, "block id ^%s is written %d times; fix the duplicates (edit_file) first", id, len(found))
	}
	i := found[0]
	return blockAt(src, lines, hs, bodyLine(lines, n.BodyOffset), n.BlockIDs[i], n.BlockLines[i]-1), nil
}

// bodyLine returns the index of the line where the body starts.
func bodyLine(lines []line, bodyOffset int) int {
	for i, l := range lines {
		if l.start >= bodyOffset {
			return i
		}
	}
	return len(lines)
}

// blockAt works out the lines of the block whose id is on line L.
func blockAt(src []byte, lines []line, hs []heading, top int, id string, L int) block {
	isHeading := make(map[int]bool, len(hs))
	for _, h := range hs {
		for j := h.line; j < h.body; j++ {
			isHeading[j] = true
		}
	}
	stop := func(j int) bool { return j < top || blank(lines[j].text(src)) || isHeading[j] }
	own := string(bytes.TrimSpace(lines[L].text(src))) == "^"+id
	b := block{id: id, idLine: L, end: L + 1}
	if own {
		switch {
		case L-1 >= top && !stop(L-1):
			// Right below its block: the id line ends a paragraph (or
			// a list item's text) as a lazy continuation.
			b.end = L
		case L-2 >= top && blank(lines[L-1].text(src)):
			// After a blank line: it marks the block above.
			e := L - 1
			for e > top && blank(lines[e-1].text(src)) {
				e--
			}
			if e > top && !isHeading[e-1] {
				b.end = e
			}
		}
		if b.end == L+1 {
			// Nothing above to mark: the block is the id line itself.
			b.start = L
			b.paragraph = true
			return b
		}
	}
	// Walk up to the block's first line: a blank line, a heading or the
	// start of a list item ends the walk.
	s := b.end - 1
	for s > top && !listItemStart(lines[s].text(src)) && !stop(s-1) {
		s--
	}
	b.start = s
	first := bytes.TrimLeft(lines[s].text(src), " \t")
	b.paragraph = !listItemStart(lines[s].text(src)) && !bytes.HasPrefix(first, []byte("|")) && !bytes.HasPrefix(first, []byte(">"))
	if own && b.end < L {
		// Detached id of a table, list or quote: the block is only what
		// lies between its blank-line boundaries above.
		b.paragraph = false
	}
	return b
}

// listItemStart reports whether a line opens a list item ("- x", "* x",
// "+ x", "1. x", "1) x", task items included).
func listItemStart(t []byte) bool {
	t = bytes.TrimLeft(t, " \t")
	return len(trimListMarkers(t)) != len(t) || isBareMarker(t)
}

// isBareMarker is a list item with nothing after its marker ("-").
func isBareMarker(t []byte) bool {
	t = bytes.TrimRight(t, " \t")
	if len(t) == 1 {
		return t[0] == '-' || t[0] == '*' || t[0] == '+'
	}
	d := 0
	for d < len(t) && t[d] >= '0' && t[d] <= '9' {
		d++
	}
	return d > 0 && d == len(t)-1 && (t[d] == '.' || t[d] == ')')
}
