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
	return blockAt(src, lines, hs, bodyLine(lines, n.BodyOffset), n.BlockIDs[i], n.BlockLines[i]-1, n.BlockStarts[i]-1), nil
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

// blockAt works out the lines of the block whose id is on line L, at
// the end of the paragraph (or list item text) that starts on line P.
func blockAt(src []byte, lines []line, hs []heading, top int, id string, L, P int) block {
	b := block{id: id, idLine: L, start: P, end: L + 1}
	own := string(bytes.TrimSpace(lines[L].text(src))) == "^"+id
	if own && P < L {
		// "text" over "^id": the id line ends the paragraph as its last
		// line.
		b.end = L
	}
	if own && P == L {
		// The id is a paragraph of its own: after a blank line it marks
		// the block above (a table, list, quote or code block), which
		// runs up to the blank line or heading before it.
		isHeading := make(map[int]bool, len(hs))
		for _, h := range hs {
			for j := h.line; j < h.body; j++ {
				isHeading[j] = true
			}
		}
		e := L
		for e > top && blank(lines[e-1].text(src)) {
			e--
		}
		if e == L || e == top || isHeading[e-1] {
			// Nothing above to mark: the block is the id line itself.
			b.paragraph = true
			return b
		}
		s := e - 1
		for s > top && !blank(lines[s-1].text(src)) && !isHeading[s-1] {
			s--
		}
		b.start, b.end = s, e
		return b
	}
	first := bytes.TrimLeft(lines[P].text(src), " \t")
	b.paragraph = !listItemStart(lines[P].text(src)) && !bytes.HasPrefix(first, []byte("|")) && !bytes.HasPrefix(first, []byte(">"))
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
