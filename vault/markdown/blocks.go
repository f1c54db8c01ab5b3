package markdown

import "bytes"

// The block pass follows the CommonMark block algorithm (as in commonmark.js,
// with goldmark's HTML-block and link-reference rules, goldmark being the
// reference the fuzz tests compare against). It only records what the inline
// pass needs: the leaf blocks that carry inline content (paragraphs and
// headings) as line segments of src, and the labels of link reference
// definitions. Code blocks and HTML blocks are skipped: they carry no links.

type blockKind uint8

const (
	kindDocument blockKind = iota
	kindQuote
	kindList
	kindItem
	kindParagraph
	kindFenced
	kindIndented
	kindHTML
)

// openBlock is one entry of the stack of open blocks (document at index 0).
type openBlock struct {
	kind     blockKind
	hasChild bool
	// list item: column where its content starts, relative to its parent's
	contentIndent int
	// list: its marker ('-', '*', '+', or '.' or ')' when ordered), and the
	// content indent and emptiness of its last item (kept once it closed)
	marker           byte
	lastItemOffset   int
	lastItemHasChild bool
	// fenced code
	fenceChar   byte
	fenceLen    int
	fenceOffset int
	// HTML block type 1..7
	htmlType int
	// paragraph: index into parser.leaves
	leaf int
}

// seg is one line of a leaf block: src[start:end] is its content (container
// prefixes and leading spaces removed, line ending excluded), src[end:next]
// its line ending.
type seg struct {
	start, end, next int
	line             int
}

type leafKind uint8

const (
	leafParagraph leafKind = iota
	leafHeading
	leafRemoved // a paragraph made only of link reference definitions
)

// leaf is a block with inline content; its lines are segs[first:last].
type leaf struct {
	kind        leafKind
	level       int  // heading level
	inQuote     bool // inside a block quote (its headings are not note headings)
	first, last int
}

func isSpaceOrTab(c int) bool { return c == ' ' || c == '\t' }

// at returns the byte at i of the current line, or -1 past its end.
func (p *parser) at(i int) int {
	if i < p.lineEnd {
		return int(p.src[i])
	}
	return -1
}

// blocks runs the block pass over src[start:], whose first line is line
// number firstLine.
func (p *parser) blocks(start, firstLine int) {
	p.stack = append(p.stack[:0], openBlock{kind: kindDocument})
	p.lineNo = firstLine - 1
	src := p.src
	for pos := start; pos < len(src); {
		end, next := len(src), len(src)
		if nl := bytes.IndexByte(src[pos:], '\n'); nl >= 0 {
			end, next = pos+nl, pos+nl+1
		}
		if end > pos && src[end-1] == '\r' {
			end--
		}
		p.lineStart, p.lineEnd, p.lineNext = pos, end, next
		p.lineNo++
		p.incorporateLine()
		pos = next
	}
	p.closeAbove(0)
}

func (p *parser) findNextNonspace() {
	var i, cols int
	if p.ns.valid && p.ns.from <= p.offset && p.offset <= p.ns.at {
		// Still in the run of spaces scanned before: a line indented
		// 2,000 columns under 1,000 nested list items would otherwise be
		// rescanned once per container, cubic in the nesting depth.
		// Columns are absolute within the line, so the run's end keeps
		// its column whatever offset the scan starts from.
		i, cols = p.ns.at, p.ns.col
	} else {
		i, cols = p.offset, p.column
		for i < p.lineEnd {
			c := p.src[i]
			if c == ' ' {
				i++
				cols++
			} else if c == '\t' {
				i++
				cols += 4 - cols%4
			} else {
				break
			}
		}
		p.ns = nonspaceRun{valid: true, from: p.offset, at: i, col: cols}
	}
	p.blank = i == p.lineEnd || (p.src[i] == '\r' && isBlank(p.src[i:p.lineEnd]))
	p.nextNonspace, p.nextNonspaceColumn = i, cols
	p.indent = cols - p.column
	p.indented = p.indent >= 4
}

func (p *parser) advanceNextNonspace() {
	p.offset, p.column = p.nextNonspace, p.nextNonspaceColumn
	p.partiallyConsumedTab = false
}

// advanceOffset moves count bytes (or, with columns, count columns, which may
// end inside a tab) along the line.
func (p *parser) advanceOffset(count int, columns bool) {
	for count > 0 && p.offset < p.lineEnd {
		if p.src[p.offset] == '\t' {
			toTab := 4 - p.column%4
			if columns {
				p.partiallyConsumedTab = toTab > count
				adv := min(toTab, count)
				p.column += adv
				if !p.partiallyConsumedTab {
					p.offset++
				}
				count -= adv
			} else {
				p.partiallyConsumedTab = false
				p.column += toTab
				p.offset++
				count--
			}
		} else {
			p.partiallyConsumedTab = false
			p.offset++
			p.column++
			count--
		}
	}
}

// nonspaceRun caches findNextNonspace's scan of the current line: from
// offset from, the first non-space byte is at, in column col.
type nonspaceRun struct {
	valid    bool
	from, at int
	col      int
}

func (p *parser) incorporateLine() {
	p.ns.valid = false
	p.offset, p.column = p.lineStart, 0
	p.blank, p.partiallyConsumedTab = false, false

	// Match the line against the open blocks, outermost first.
	container := 0
	for container+1 < len(p.stack) {
		p.findNextNonspace()
		r := p.continueBlock(container + 1)
		if r == lineDone {
			return
		}
		if r == unmatched {
			break
		}
		container++
	}
	p.allClosed = container == len(p.stack)-1
	p.lastMatched = container

	// Open new blocks, unless the line belongs to an open code or HTML block.
	if k := p.stack[container].kind; k != kindFenced && k != kindIndented && k != kindHTML {
		for {
			p.findNextNonspace()
			if !p.indented && !maybeSpecial(p.at(p.nextNonspace)) {
				p.advanceNextNonspace()
				break
			}
			r := p.blockStart(container)
			if r == lineDone {
				return
			}
			if r == unmatched {
				p.advanceNextNonspace()
				break
			}
			container = len(p.stack) - 1
		}
	}

	tip := len(p.stack) - 1
	if !p.allClosed && !p.blank && p.stack[tip].kind == kindParagraph {
		p.addLine(tip) // lazy continuation line
		return
	}
	p.closeUnmatched()
	tip = len(p.stack) - 1
	switch p.stack[tip].kind {
	case kindParagraph:
		p.addLine(tip)
	case kindHTML:
		if t := p.stack[tip].htmlType; t >= 1 && t <= 5 && htmlBlockCloses(t, p.src[p.offset:p.lineEnd]) {
			p.closeAbove(tip - 1)
		}
	case kindFenced, kindIndented:
		// code: not content
	default:
		if p.offset < p.lineEnd && !p.blank {
			p.addChild(kindParagraph)
			tip = len(p.stack) - 1
			p.leaves = append(p.leaves, leaf{kind: leafParagraph, inQuote: p.inQuote(), first: len(p.segs), last: len(p.segs)})
			p.stack[tip].leaf = len(p.leaves) - 1
			p.advanceNextNonspace()
			p.addLine(tip)
		}
	}
}

func maybeSpecial(c int) bool {
	switch c {
	case '#', '`', '~', '*', '+', '_', '=', '<', '>', '-',
		'0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// lineResult says how a block took the current line.
type lineResult uint8

const (
	matched   lineResult = iota // the block goes on (or opened); look further
	unmatched                   // the block does not take the line (or none opens)
	lineDone                    // the line is fully handled
)

// continueBlock reports whether the line continues open block i.
func (p *parser) continueBlock(i int) lineResult {
	b := &p.stack[i]
	switch b.kind {
	case kindQuote:
		if !p.indented && p.at(p.nextNonspace) == '>' {
			p.advanceNextNonspace()
			p.advanceOffset(1, false)
			if isSpaceOrTab(p.at(p.offset)) {
				p.advanceOffset(1, true)
			}
			return matched
		}
		return unmatched
	case kindList:
		return p.continueList(i)
	case kindItem:
		return p.continueItem(i)
	case kindFenced:
		if p.indent <= 3 && p.at(p.nextNonspace) == int(b.fenceChar) {
			j := p.nextNonspace
			for j < p.lineEnd && p.src[j] == b.fenceChar {
				j++
			}
			if j-p.nextNonspace >= b.fenceLen && isBlank(p.src[j:p.lineEnd]) {
				p.closeAbove(i - 1)
				return lineDone
			}
		}
		for n := b.fenceOffset; n > 0 && isSpaceOrTab(p.at(p.offset)); n-- {
			p.advanceOffset(1, true)
		}
		return matched
	case kindIndented:
		if p.indent >= 4 {
			p.advanceOffset(4, true)
		} else if p.blank {
			p.advanceNextNonspace()
		} else {
			return unmatched
		}
		return matched
	case kindHTML:
		if p.blank && (b.htmlType == 6 || b.htmlType == 7) {
			return unmatched
		}
		return matched
	case kindParagraph:
		if p.blank {
			return unmatched
		}
		return matched
	}
	return unmatched
}

// blockStart tries to open a block at the current position, inside the
// matched container: matched for a container (more may open inside it),
// lineDone for a leaf that takes the line, unmatched for none.
func (p *parser) blockStart(container int) lineResult {
	nn := p.nextNonspace
	c := p.at(nn)
	containerIsPara := p.stack[container].kind == kindParagraph
	if !p.indented {
		switch c {
		case '>':
			p.advanceNextNonspace()
			p.advanceOffset(1, false)
			if isSpaceOrTab(p.at(p.offset)) {
				p.advanceOffset(1, true)
			}
			p.closeUnmatched()
			p.addChild(kindQuote)
			return matched
		case '#':
			if p.atxHeading() {
				return lineDone
			}
		case '`', '~':
			j := nn
			for j < p.lineEnd && int(p.src[j]) == c {
				j++
			}
			if n := j - nn; n >= 3 && (c == '~' || bytes.IndexByte(p.src[j:p.lineEnd], '`') < 0) {
				p.closeUnmatched()
				p.addChild(kindFenced)
				b := &p.stack[len(p.stack)-1]
				b.fenceChar, b.fenceLen, b.fenceOffset = byte(c), n, p.indent
				return lineDone
			}
		case '<':
			if t := p.htmlBlockStart(); t != 0 && p.spaceIndent() {
				p.closeUnmatched()
				p.addChild(kindHTML)
				tip := len(p.stack) - 1
				p.stack[tip].htmlType = t
				if t <= 5 && htmlBlockCloses(t, p.src[p.offset:p.lineEnd]) {
					p.closeAbove(tip - 1)
				}
				return lineDone
			}
		}
		if (c == '=' || c == '-') && containerIsPara && p.spaceIndent() && isSetextLine(p.src[nn:p.lineEnd]) {
			if p.setextHeading(container, c) {
				return lineDone
			}
			// The paragraph held only link reference definitions and is
			// gone: try the other starts in its parent.
			container--
			containerIsPara = false
		}
		if (c == '*' || c == '-' || c == '_') && p.thematicBreak(nn) {
			p.closeUnmatched()
			p.closeLeafTip()
			p.stack[len(p.stack)-1].hasChild = true
			return lineDone
		}
		if m, ok := p.listItemMarker(); ok {
			if p.stack[container].kind == kindList {
				if p.indent-p.stack[container].lastItemOffset > 3 {
					return unmatched
				}
			} else {
				if containerIsPara && (m.ordered && !isOne(p.src[nn:nn+m.len-1]) || p.restIsBlank(nn+m.len)) {
					return unmatched // only non-empty items, and lists starting at 1, interrupt a paragraph
				}
				p.closeUnmatched()
				p.addChild(kindList)
				p.stack[len(p.stack)-1].marker = m.marker
			}
			p.openItem(m)
			return matched
		}
		return unmatched
	}
	tip := len(p.stack) - 1
	if p.stack[tip].kind != kindParagraph && !p.blank {
		p.advanceOffset(4, true)
		p.closeUnmatched()
		p.addChild(kindIndented)
		return lineDone
	}
	return unmatched
}

// closeUnmatched closes the blocks the current line did not continue.
func (p *parser) closeUnmatched() {
	if !p.allClosed {
		p.closeAbove(p.lastMatched)
		p.allClosed = true
	}
}

// closeAbove closes every open block above stack index keep.
func (p *parser) closeAbove(keep int) {
	for len(p.stack)-1 > keep {
		tip := len(p.stack) - 1
		switch p.stack[tip].kind {
		case kindParagraph:
			p.finishParagraph(p.stack[tip].leaf)
		case kindItem:
			p.stack[tip-1].lastItemHasChild = p.stack[tip].hasChild
		}
		p.stack = p.stack[:tip]
	}
}

// closeLeafTip closes the tip when it is a leaf (leaves hold no children).
func (p *parser) closeLeafTip() {
	for {
		tip := len(p.stack) - 1
		switch p.stack[tip].kind {
		case kindParagraph, kindFenced, kindIndented, kindHTML:
			p.closeAbove(tip - 1)
			continue
		}
		return
	}
}

func (p *parser) addChild(k blockKind) {
	p.closeLeafTip()
	p.stack[len(p.stack)-1].hasChild = true
	p.stack = append(p.stack, openBlock{kind: k})
}

func (p *parser) inQuote() bool {
	for i := range p.stack {
		if p.stack[i].kind == kindQuote {
			return true
		}
	}
	return false
}

// addLine appends the rest of the current line to the paragraph at stack
// index i.
func (p *parser) addLine(i int) {
	start := p.offset
	for start < p.lineEnd && isTrimSpace(p.src[start]) {
		start++
	}
	p.segs = append(p.segs, seg{start: start, end: p.lineEnd, next: p.lineNext, line: p.lineNo})
	p.leaves[p.stack[i].leaf].last = len(p.segs)
}

// atxHeading opens an ATX heading at nextNonspace, the way goldmark trims
// it, and reports whether it did.
func (p *parser) atxHeading() bool {
	src, nn, end := p.src, p.nextNonspace, p.lineEnd
	i := nn
	for i < end && src[i] == '#' {
		i++
	}
	level := i - nn
	if level > 6 || (i < end && src[i] != ' ' && src[i] != '\t' && src[i] != '\r') {
		return false
	}
	p.closeUnmatched()
	p.closeLeafTip()
	p.stack[len(p.stack)-1].hasChild = true
	for i < end && isTrimSpace(src[i]) {
		i++
	}
	stop := end
	for stop > i && isTrimSpace(src[stop-1]) {
		stop--
	}
	// Remove the optional closing sequence of #s.
	if stop > i {
		j := stop - 1
		for j > i && src[j] == '#' {
			j--
		}
		if j == i && src[i] == '#' {
			stop = i // only #s: an empty heading
		} else if j != stop-1 && isTrimSpace(src[j]) {
			stop = j
			for stop > i && isTrimSpace(src[stop-1]) {
				stop--
			}
		}
	}
	first := len(p.segs)
	p.segs = append(p.segs, seg{start: i, end: stop, next: stop, line: p.lineNo})
	p.leaves = append(p.leaves, leaf{kind: leafHeading, level: level, inQuote: p.inQuote(), first: first, last: first + 1})
	return true
}

// setextHeading turns the paragraph at stack index para into a heading,
// unless it holds only link reference definitions.
func (p *parser) setextHeading(para int, c int) bool {
	p.closeUnmatched()
	li := p.extractReferences(p.stack[para].leaf)
	lf := &p.leaves[li]
	if lf.kind == leafRemoved {
		// The paragraph is gone: goldmark then retries the other starts
		// as if no paragraph were open.
		p.stack = p.stack[:para]
		return false
	}
	lf.kind = leafHeading
	lf.level = 1
	if c == '-' {
		lf.level = 2
	}
	p.stack = p.stack[:para]
	return true
}

func isSetextLine(b []byte) bool {
	c := b[0]
	i := 0
	for i < len(b) && b[i] == c {
		i++
	}
	return isBlank(b[i:])
}

// tbScan remembers the last thematic-break scan of a line: nested list
// markers ("- - - - …") would otherwise rescan the line once per marker.
type tbScan struct {
	line, from int
	mark       byte
	count      int // marks in src[from:bad or lineEnd]
	bad        int // first byte that is neither the mark nor a space, or -1
}

// thematicBreak reports whether the current line from k (a '*', '-' or '_'
// at nextNonspace) is a thematic break: three or more of that mark and
// nothing but spaces besides.
func (p *parser) thematicBreak(k int) bool {
	mark := p.src[k]
	t := &p.tb
	if t.line == p.lineStart && t.mark == mark && k >= t.from && (t.bad < 0 || k < t.bad) {
		// k lies in the part already scanned, made of marks and spaces.
		for i := t.from; i < k; i++ {
			if p.src[i] == mark {
				t.count--
			}
		}
		t.from = k
		return t.bad < 0 && t.count >= 3
	}
	*t = tbScan{line: p.lineStart, from: k, mark: mark, bad: -1}
	for i := k; i < p.lineEnd; i++ {
		if c := p.src[i]; c == mark {
			t.count++
		} else if c != ' ' && c != '\t' && c != '\r' {
			t.bad = i
			break
		}
	}
	return t.bad < 0 && t.count >= 3
}

// marker is a list item marker found at nextNonspace.
type marker struct {
	len     int  // bytes, including the '.' or ')' of an ordered marker
	marker  byte // '-', '*', '+', '.' or ')'
	ordered bool
}

// listItemMarker recognises a list item marker at nextNonspace the way
// goldmark's parseListItem does: at most three spaces of indentation (no
// tabs), "-", "*", "+" or one to nine digits and "." or ")", then a space, a
// tab or the end of the line.
func (p *parser) listItemMarker() (marker, bool) {
	if p.indent >= 4 || !p.spaceIndent() {
		return marker{}, false
	}
	nn := p.nextNonspace
	var m marker
	switch c := p.at(nn); {
	case c == '*' || c == '+' || c == '-':
		m = marker{len: 1, marker: byte(c)}
	case c >= '0' && c <= '9':
		j := nn
		for j < p.lineEnd && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		d := p.at(j)
		if j-nn > 9 || (d != '.' && d != ')') {
			return marker{}, false
		}
		m = marker{len: j - nn + 1, marker: byte(d), ordered: true}
	default:
		return marker{}, false
	}
	next := p.at(nn + m.len)
	if next != -1 && next != ' ' && next != '\t' {
		return marker{}, false
	}
	if next == -1 && p.lineEnd < len(p.src) && p.src[p.lineEnd] == '\r' {
		// goldmark quirk, kept so both agree on what is code: a marker
		// followed by "\r\n" (an empty item in a CRLF file) is not one.
		return marker{}, false
	}
	return m, true
}

// openItem opens a list item (in the list on top of the stack) for the
// marker at nextNonspace and moves to its content.
func (p *parser) openItem(m marker) {
	nn := p.nextNonspace
	markerOffset := p.indent
	// The content starts after the spaces following the marker (1 to 4
	// columns; one when there are more, or none). goldmark measures them with
	// tab stops counted from where the container's content starts on this
	// line, not from the line start; it is followed here so that both agree
	// on which lines are indented code.
	relMarkerEnd := p.nextNonspaceColumn - p.column + m.len
	width := 0
	for j := nn + m.len; j < p.lineEnd; j++ {
		if c := p.src[j]; c == ' ' {
			width++
		} else if c == '\t' {
			width += 4 - (relMarkerEnd+width)%4
		} else {
			break
		}
	}
	if width > 4 || p.restIsBlank(nn+m.len) {
		width = 1
	}
	// Advance to the content as goldmark does: width relative columns,
	// possibly ending inside a tab (whose rest then counts as spaces).
	j, col := nn+m.len, p.nextNonspaceColumn+m.len
	w := 0
	for j < p.lineEnd && w < width {
		if c := p.src[j]; c == '\t' {
			w += 4 - (relMarkerEnd+w)%4
			col += 4 - col%4
		} else if c == ' ' {
			w++
			col++
		} else {
			break
		}
		j++
	}
	if pad := w - width; pad > 0 {
		p.offset, p.column, p.partiallyConsumedTab = j-1, col-pad, true
	} else {
		p.offset, p.column, p.partiallyConsumedTab = j, col, false
	}
	p.closeUnmatched()
	p.emptyItemBlank = false
	p.addChild(kindItem)
	tip := len(p.stack) - 1
	p.stack[tip].contentIndent = markerOffset + m.len + width
	p.stack[tip-1].lastItemOffset = p.stack[tip].contentIndent
	p.stack[tip-1].lastItemHasChild = false
}

// continueList follows goldmark's listParser.Continue: a list goes on with
// a new item of the same kind, with a line indented into its last item, or
// after blank lines; "emptyItemBlank" (a blank line after an empty item,
// goldmark's document-wide flag) ends it.
func (p *parser) continueList(i int) lineResult {
	l := &p.stack[i]
	lastIsEmpty := !l.lastItemHasChild
	if i+1 < len(p.stack) && p.stack[i+1].kind == kindItem {
		lastIsEmpty = !p.stack[i+1].hasChild
	}
	if p.blank {
		if lastIsEmpty {
			p.emptyItemBlank = true
		}
		return matched
	}
	offset := l.lastItemOffset
	if p.indent < offset || lastIsEmpty {
		if p.indent < 4 {
			if m, ok := p.listItemMarker(); ok && p.indent-offset < 4 {
				if m.marker != l.marker {
					return unmatched
				}
				rest := p.src[p.nextNonspace:p.lineEnd]
				if (rest[0] == '*' || rest[0] == '-' || rest[0] == '_') && p.thematicBreak(p.nextNonspace) {
					tip := p.stack[len(p.stack)-1].kind
					if !(tip == kindParagraph && rest[0] == '-' && isSetextLine(rest)) {
						return unmatched
					}
				}
				return matched
			}
		}
		if !lastIsEmpty {
			return unmatched
		}
	}
	if lastIsEmpty && p.indent < offset {
		return unmatched
	}
	if p.emptyItemBlank {
		return unmatched
	}
	return matched
}

// continueItem follows goldmark's listItemParser.Continue.
func (p *parser) continueItem(i int) lineResult {
	b := &p.stack[i]
	if p.blank {
		p.advanceNextNonspace()
		return matched
	}
	isEmpty := !b.hasChild && p.emptyItemBlank
	if (isEmpty || p.indent < b.contentIndent) && p.indent < 4 {
		if _, ok := p.listItemMarker(); ok {
			return unmatched // a new item of the list
		}
		if !isEmpty {
			return unmatched
		}
	}
	if p.indent < b.contentIndent {
		return unmatched
	}
	p.advanceOffset(b.contentIndent, true)
	return matched
}

// restIsBlank reports whether the current line is blank from i on, looking
// no further than its first non-blank byte.
func (p *parser) restIsBlank(i int) bool {
	for ; i < p.lineEnd; i++ {
		if c := p.src[i]; c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// spaceIndent reports whether the indentation before nextNonspace is made of
// spaces only. goldmark matches HTML block starts, list markers and setext
// underlines against the raw line (a tab is not a space there), except for a
// tab a container marker already partly consumed.
func (p *parser) spaceIndent() bool {
	from := p.offset
	if p.partiallyConsumedTab {
		from++
	}
	for i := from; i < p.nextNonspace; i++ {
		if p.src[i] != ' ' {
			return false
		}
	}
	return true
}

func isOne(digits []byte) bool {
	v := 0
	for _, d := range digits {
		v = v*10 + int(d-'0')
	}
	return v == 1
}

// isBlank reports whether b holds only spaces, tabs and carriage returns
// (goldmark's notion of a blank line).
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// isTrimSpace is the set goldmark trims from paragraph lines.
func isTrimSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
