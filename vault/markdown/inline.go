package markdown

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The first inline pass finds the CommonMark structure that decides what is
// code: code spans, and everything that can swallow a backtick before a code
// span sees it (backslash escapes, autolinks, raw HTML, link destinations and
// titles, reference-link labels). It mirrors goldmark's inline parser, the
// reference the differential fuzz test holds this package to.

// region is a span of the inline buffer that carries no Obsidian syntax: a
// code span, raw HTML or an autolink, or the "(destination "title")" or
// "[label]" that follows a link's text.
type region struct {
	start, end int
}

// mdLink is an inline Markdown link or image found by the first pass.
type mdLink struct {
	start              int // '[' or the '!' of an image
	textStart, textEnd int // the link text; textEnd is the ']'
	destStart, destEnd int // the destination as written, without <>; equal when empty
	angle              bool
	end                int // after ')'
	image              bool
}

type bracket struct {
	pos     int // the '['
	image   bool
	hasLink bool // a link was formed inside it: it can no longer be one
}

// isPunct reports ASCII punctuation (goldmark's util.IsPunct).
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// isSpace is goldmark's util.IsSpace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

var pass1Special = [256]bool{'\\': true, '`': true, '<': true, '!': true, '[': true, ']': true, '*': true, '_': true, '\n': true}

// pass1 fills p.regions (sorted) and p.mdLinks (sorted) for the inline
// buffer b.
//
// It walks b like goldmark's inline loop. Punctuation may start an inline
// element unless backslash-escaped, except at a "retry" position (a line
// start, or right after an element): there goldmark tries it even when
// escaped, which matters when an escape is carried over a line break.
func (p *parser) pass1(b []byte) {
	p.regions, p.mdLinks, p.brackets = p.regions[:0], p.mdLinks[:0], p.brackets[:0]
	clear(p.noCloser)
	p.ticks, p.tickScan = nil, 0
	p.htmlUnclosed = [4]bool{}
	escaped, retry := false, true
	lineStart := 0
	for i := 0; i < len(b); {
		c := b[i]
		if !pass1Special[c] {
			if escaped && !hardBreakTail(b, i, lineStart) {
				escaped = false
			}
			retry = false
			i++
			continue
		}
		if c == '\n' {
			// goldmark stops at the newline: an escape carries over it
			lineStart, retry = i+1, true
			i++
			continue
		}
		if c == '\\' && hardBreakTail(b, i, lineStart) {
			i++ // a hard line break: goldmark drops it unread
			continue
		}
		if !escaped || retry {
			if end, ok := p.inline(b, i); ok {
				i, retry = end, true
				continue
			}
		}
		if escaped {
			escaped = false
		} else if c == '\\' {
			escaped = true
		}
		retry = false
		i++
	}
	// Links close inside out; the second pass wants them by start.
	slices.SortFunc(p.mdLinks, func(a, b mdLink) int { return a.start - b.start })
}

// inline tries to start an inline element at b[i] and returns where it
// ends; ok is false when nothing starts there (goldmark's parser returned
// nil).
func (p *parser) inline(b []byte, i int) (end int, ok bool) {
	switch c := b[i]; c {
	case '`':
		n := 1
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		if end := p.closingBackticks(b, i+n, n); end > 0 {
			p.regions = append(p.regions, region{i, end})
			return end, true
		}
		return i + n, true // literal backticks, still an element for goldmark
	case '*', '_':
		j := i + 1
		for j < len(b) && b[j] == c {
			j++
		}
		return j, true // an emphasis delimiter run
	case '<':
		end := autolink(b, i)
		if end < 0 {
			end = p.rawHTML(b, i)
		}
		if end > 0 {
			p.regions = append(p.regions, region{i, end})
			return end, true
		}
	case '!':
		if i+1 < len(b) && b[i+1] == '[' {
			p.brackets = append(p.brackets, bracket{pos: i + 1, image: true})
			return i + 2, true
		}
	case '[':
		p.brackets = append(p.brackets, bracket{pos: i})
		return i + 1, true
	case ']':
		return p.closeBracket(b, i)
	}
	return 0, false
}

// hardBreakTail reports whether b[i] belongs to a hard line break at the end
// of its line ("\\\n" or two spaces before "\n"): goldmark drops those bytes
// before its inline loop sees them, so they neither escape nor unescape.
func hardBreakTail(b []byte, i, lineStart int) bool {
	e := i
	for e < len(b) && e-i < 3 && b[e] != '\n' {
		e++
	}
	if e >= len(b) || b[e] != '\n' {
		return false
	}
	// b[e] is the newline ending the line that holds i.
	switch {
	case e-1 >= lineStart && b[e-1] == '\\' && (e-1 == lineStart || b[e-2] != '\\'):
		return i == e-1
	case e-2 >= lineStart && b[e-1] == '\r' && b[e-2] == '\\' && (e-2 == lineStart || b[e-3] != '\\'):
		return i >= e-2
	case e-2 >= lineStart && b[e-1] == ' ' && b[e-2] == ' ':
		return i >= e-2
	case e-3 >= lineStart && b[e-1] == '\r' && b[e-2] == ' ' && b[e-3] == ' ':
		return i >= e-3
	}
	return false
}

// closingBackticks returns the end of the first run of exactly n backticks
// at or after from, or -1. Scanning ahead from every opener is quadratic on
// hostile input (runs of many different lengths, none closed), so a failed
// search is remembered per length, and past a budget the runs are indexed.
func (p *parser) closingBackticks(b []byte, from, n int) int {
	if p.noCloser[n] {
		return -1
	}
	if p.ticks == nil && p.tickScan > 4*len(b)+4096 {
		p.indexTicks(b)
	}
	if p.ticks != nil {
		runs := p.ticks[n]
		k := sort.SearchInts(runs, from)
		if k < len(runs) {
			return runs[k] + n
		}
	} else {
		for i := from; i < len(b); {
			k := bytes.IndexByte(b[i:], '`')
			if k < 0 {
				break
			}
			i += k
			j := i
			for j < len(b) && b[j] == '`' {
				j++
			}
			if j-i == n {
				p.tickScan += j - from
				return j
			}
			i = j
		}
		p.tickScan += len(b) - from
	}
	if p.noCloser == nil {
		p.noCloser = make(map[int]bool)
	}
	p.noCloser[n] = true
	return -1
}

// indexTicks records where the backtick runs of b start, by length.
func (p *parser) indexTicks(b []byte) {
	p.ticks = make(map[int][]int)
	for i := 0; i < len(b); {
		k := bytes.IndexByte(b[i:], '`')
		if k < 0 {
			break
		}
		i += k
		j := i
		for j < len(b) && b[j] == '`' {
			j++
		}
		p.ticks[j-i] = append(p.ticks[j-i], i)
		i = j
	}
}

// autolink returns the end of the autolink (<scheme:...> or <user@host>)
// starting at b[i] == '<', or -1 (goldmark's util.FindURLIndex and
// FindEmailIndex).
func autolink(b []byte, i int) int {
	line := b[i+1:]
	if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl+1]
	}
	stop := emailEnd(line)
	if stop < 0 {
		stop = urlEnd(line)
	}
	if stop < 0 || stop >= len(line) || line[stop] != '>' {
		return -1
	}
	return i + 1 + stop + 1
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func urlEnd(b []byte) int {
	if len(b) == 0 || !isAlpha(b[0]) {
		return -1
	}
	i := 1
	for i < len(b) && (isAlnum(b[i]) || b[i] == '+' || b[i] == '-' || b[i] == '.') {
		i++
	}
	if i == 1 || i > 33 || i >= len(b) || b[i] != ':' {
		return -1
	}
	i++
	for i < len(b) && b[i] > ' ' && b[i] != '<' && b[i] != '>' {
		i++
	}
	return i
}

func isEmailLocal(c byte) bool {
	return isAlnum(c) || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", c) >= 0
}

func emailEnd(b []byte) int {
	i := 0
	for i < len(b) && i < 64 && isEmailLocal(b[i]) {
		i++
	}
	if i == 0 || i >= len(b) || b[i] != '@' {
		return -1
	}
	i++
	// domain: labels of [a-zA-Z0-9-]{1,63} not starting or ending with '-',
	// separated by dots, at most 255 bytes
	start, end := i, -1
	for {
		j := i
		for j < len(b) && j-i < 63 && (isAlnum(b[j]) || b[j] == '-') {
			j++
		}
		for j > i && b[j-1] == '-' {
			j--
		}
		if j == i || b[i] == '-' {
			break
		}
		end = j
		if j < len(b) && b[j] == '.' {
			i = j + 1
			continue
		}
		break
	}
	if end < 0 || end-start > 255 {
		return -1
	}
	return end
}

// closeBracket handles the ']' at b[i]: it returns the end of the link it
// closes, or ok false (the ']' is text).
func (p *parser) closeBracket(b []byte, i int) (int, bool) {
	n := len(p.brackets)
	if n == 0 {
		return 0, false
	}
	last := p.brackets[n-1]
	p.brackets = p.brackets[:n-1]
	if !last.image && last.hasLink {
		return 0, false
	}
	start := last.pos
	if last.image {
		start--
	}
	if i+1 < len(b) && b[i+1] == '(' {
		if l, ok := inlineLink(b, i+1); ok {
			l.start, l.textStart, l.textEnd, l.image = start, last.pos+1, i, last.image
			p.mdLinks = append(p.mdLinks, l)
			p.regions = append(p.regions, region{i + 1, l.end})
			p.linkFormed(last.image)
			return l.end, true
		}
	} else if i+1 < len(b) && b[i+1] == '[' {
		end, found, hasValue := p.referenceLink(b, last.pos+1, i)
		if found {
			p.regions = append(p.regions, region{i + 1, end})
			p.linkFormed(last.image)
			return end, true
		}
		if hasValue {
			return 0, false
		}
	}
	if label := b[last.pos+1 : i]; len(label) <= 999 && p.hasReference(label) {
		p.linkFormed(last.image)
		return i + 1, true
	}
	return 0, false
}

// linkFormed records that the brackets still open now contain a link.
func (p *parser) linkFormed(image bool) {
	if image {
		return
	}
	for k := range p.brackets {
		p.brackets[k].hasLink = true
	}
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// inlineLink parses "(dest "title")" at b[j] == '(' like goldmark's
// parseLink.
func inlineLink(b []byte, j int) (mdLink, bool) {
	var l mdLink
	k := skipSpaces(b, j+1)
	if k < len(b) && b[k] == ')' {
		l.destStart, l.destEnd, l.end = k, k, k+1
		return l, true
	}
	if k < len(b) && b[k] == '<' {
		m := angleDestEnd(b, k)
		if m < 0 {
			return l, false
		}
		l.destStart, l.destEnd, l.angle = k+1, m, true
		k = m + 1
	} else {
		m := plainDestEnd(b, k)
		if m == k {
			return l, false
		}
		l.destStart, l.destEnd = k, min(m, len(b))
		k = l.destEnd
	}
	k = skipSpaces(b, k)
	if k < len(b) && b[k] == ')' {
		l.end = k + 1
		return l, true
	}
	if k >= len(b) || (b[k] != '"' && b[k] != '\'' && b[k] != '(') {
		return l, false
	}
	end, ok := findClosure(b, k+1, b[k])
	if !ok {
		return l, false
	}
	k = skipSpaces(b, end)
	if k < len(b) && b[k] == ')' {
		l.end = k + 1
		return l, true
	}
	return l, false
}

// findClosure finds the closer of opener (a quote, '(' or '[') from b[i],
// without nesting and across lines, honouring backslash escapes; it returns
// the position after the closer.
func findClosure(b []byte, i int, opener byte) (int, bool) {
	closer := opener
	switch opener {
	case '(':
		closer = ')'
	case '[':
		closer = ']'
	}
	for i < len(b) {
		c := b[i]
		if c == '\\' && i+1 < len(b) && isPunct(b[i+1]) {
			i += 2
			continue
		}
		if c == closer {
			return i + 1, true
		}
		if c == opener {
			return 0, false
		}
		i++
	}
	return 0, false
}

// referenceLink handles "[text][label]" with b[i] == ']' and b[i+1] == '['.
// found: a defined reference (the link ends at end); hasValue: a label was
// there but is not defined, so the brackets are literal text.
func (p *parser) referenceLink(b []byte, textStart, i int) (end int, found, hasValue bool) {
	end, ok := findClosure(b, i+2, '[')
	if !ok {
		return 0, false, false
	}
	label := b[i+2 : end-1]
	if isBlank(label) {
		label = b[textStart:i]
	}
	if len(label) > 999 {
		return 0, false, true
	}
	if p.hasReference(label) {
		return end, true, true
	}
	return 0, false, true
}

// normalizeLabel folds a link label the way goldmark's util.ToLinkReference
// does (close enough: simple case folding).
func normalizeLabel(label []byte) string {
	label = bytes.Trim(label, " \t\n\v\f\r")
	var sb strings.Builder
	sb.Grow(len(label))
	space := false
	for len(label) > 0 {
		r, n := utf8.DecodeRune(label)
		label = label[n:]
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			space = true
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteRune(unicode.ToLower(unicode.ToUpper(r)))
	}
	return sb.String()
}

func (p *parser) hasReference(label []byte) bool {
	if len(p.refs) == 0 {
		return false
	}
	_, ok := p.refs[normalizeLabel(label)]
	return ok
}

// buffer returns the inline text of a leaf: its lines joined by their own
// line endings, as goldmark's block reader presents them. When the lines are
// adjacent in src (no container prefixes) it is a slice of src.
func (p *parser) buffer(lf *leaf) []byte {
	segs := p.segs[lf.first:lf.last]
	p.bmap = p.bmap[:0]
	last := len(segs) - 1
	end := segs[last].end
	for end > segs[last].start && isTrimSpace(p.src[end-1]) {
		end--
	}
	contiguous := true
	for k := 1; k < len(segs); k++ {
		if segs[k].start != segs[k-1].next {
			contiguous = false
			break
		}
	}
	if contiguous {
		base := segs[0].start
		for _, s := range segs {
			p.bmap = append(p.bmap, bufSeg{buf: s.start - base, src: s.start, line: s.line})
		}
		return p.src[base:end]
	}
	p.buf = p.buf[:0]
	for k, s := range segs {
		p.bmap = append(p.bmap, bufSeg{buf: len(p.buf), src: s.start, line: s.line})
		if k == last {
			p.buf = append(p.buf, p.src[s.start:end]...)
		} else {
			p.buf = append(p.buf, p.src[s.start:s.next]...)
		}
	}
	return p.buf
}

// bufSeg maps a line of the inline buffer back to src.
type bufSeg struct {
	buf, src, line int
}

// srcPos maps a buffer position to its offset in src and its line.
func (p *parser) srcPos(pos int) (int, int) {
	k := len(p.bmap) - 1
	for k > 0 && p.bmap[k].buf > pos {
		k--
	}
	s := p.bmap[k]
	return s.src + pos - s.buf, s.line
}

// finishParagraph is called when a paragraph closes.
func (p *parser) finishParagraph(li int) {
	p.extractReferences(li)
}

// extractReferences removes the link reference definitions that open the
// paragraph (leaf li), following goldmark's LinkReferenceParagraphTransformer,
// and records their labels.
//
// A definition whose label starts with '^' is an Obsidian footnote
// ("[^1]: [[Source]]"): its lines become a paragraph of their own, placed
// before the rest, so their links count. goldmark never parses those lines
// as inline text, so nothing there is code to it. extractReferences returns
// the paragraph's leaf index, which then moves.
func (p *parser) extractReferences(li int) int {
	lf := &p.leaves[li]
	if lf.kind != leafParagraph || lf.last == lf.first {
		return li
	}
	if s := p.segs[lf.first]; s.start >= s.end || p.src[s.start] != '[' {
		return li
	}
	b := p.buffer(lf)
	if !bytes.Contains(b, []byte("]:")) {
		return li
	}
	lineOf := func(pos int) int {
		k := len(p.bmap) - 1
		for k > 0 && p.bmap[k].buf > pos {
			k--
		}
		return k
	}
	type span struct {
		from, to int
		footnote bool
	}
	var removes []span
	pos := 0
	for {
		from, to, next, footnote, ok := p.parseReference(b, pos, lineOf)
		if !ok {
			break
		}
		if from == to {
			to++
		}
		removes = append(removes, span{from, to, footnote})
		pos = next
		if pos >= len(b) {
			break
		}
	}
	if len(removes) == 0 {
		return li
	}
	var footnotes []leaf
	for _, r := range removes {
		if r.footnote {
			from, to := lf.first+r.from, min(lf.first+r.to, lf.last)
			footnotes = append(footnotes, leaf{kind: leafParagraph, inQuote: lf.inQuote, first: from, last: to})
		}
	}
	// Keep the lines that were not removed (goldmark's splice).
	lines := make([]seg, 0, lf.last-lf.first)
	lines = append(lines, p.segs[lf.first:lf.last]...)
	offset := 0
	for _, r := range removes {
		if len(lines) == 0 {
			break
		}
		from, to := r.from-offset, r.to-offset
		if from > len(lines) {
			from = len(lines)
		}
		if to > len(lines) {
			to = len(lines)
		}
		if from < 0 {
			from = 0
		}
		rest := append([]seg(nil), lines[to:]...)
		lines = append(lines[:from], rest...)
		offset = r.to
	}
	if len(lines) == 0 {
		lf.kind = leafRemoved
	} else {
		lf.first = len(p.segs)
		p.segs = append(p.segs, lines...)
		lf.last = len(p.segs)
	}
	p.leaves = slices.Insert(p.leaves, li, footnotes...)
	return li + len(footnotes)
}

// parseReference parses one link reference definition at b[pos:] like
// goldmark's parseLinkReferenceDefinition. It returns the line range to
// remove and where the next definition may start.
func (p *parser) parseReference(b []byte, pos int, lineOf func(int) int) (from, to, next int, footnote, ok bool) {
	i := skipSpaces(b, pos)
	if i >= len(b) || b[i] != '[' {
		return
	}
	footnote = i+1 < len(b) && b[i+1] == '^'
	startLine := lineOf(i)
	labelEnd, found := findClosure(b, i+1, '[')
	if !found {
		return
	}
	label := b[i+1 : labelEnd-1]
	if isBlank(label) || labelEnd >= len(b) || b[labelEnd] != ':' {
		return
	}
	k := skipSpaces(b, labelEnd+1)
	if k >= len(b) {
		return
	}
	// destination, on one line
	if b[k] == '<' {
		m := angleDestEnd(b, k)
		if m < 0 {
			return
		}
		k = m + 1
	} else {
		m := plainDestEnd(b, k)
		if m == k {
			return
		}
		k = min(m, len(b))
	}
	lineEnd := bytes.IndexByte(b[k:], '\n')
	restOfLine := b[k:]
	if lineEnd >= 0 {
		restOfLine = b[k : k+lineEnd]
	}
	isNewLine := isBlank(restOfLine)
	endLine := lineOf(k)
	if k == len(b) {
		endLine = lineOf(len(b) - 1)
	}
	t := skipSpaces(b, k)
	spaces := t - k
	if t >= len(b) || (b[t] != '"' && b[t] != '\'' && b[t] != '(') {
		if !isNewLine {
			return
		}
		p.addReference(label)
		return startLine, endLine + 1, t, footnote, true
	}
	if spaces == 0 {
		return
	}
	end, found := findClosure(b, t+1, b[t])
	if !found {
		if !isNewLine {
			return
		}
		p.addReference(label)
		// goldmark's reader is left past the end: no more definitions.
		return startLine, endLine + 1, len(b), footnote, true
	}
	lineEnd = bytes.IndexByte(b[end:], '\n')
	rest := b[end:]
	if lineEnd >= 0 {
		rest = b[end : end+lineEnd]
	}
	if !isBlank(rest) {
		if !isNewLine {
			return
		}
		p.addReference(label)
		return startLine, endLine, end, footnote, true
	}
	p.addReference(label)
	n := end + len(rest)
	if n < len(b) {
		n++ // past the newline
	}
	return startLine, lineOf(end) + 1, n, footnote, true
}

func (p *parser) addReference(label []byte) {
	if p.refs == nil {
		p.refs = make(map[string]struct{})
	}
	p.refs[normalizeLabel(label)] = struct{}{}
}

// angleDestEnd returns the index of the '>' that closes a link destination
// opened by '<' at b[k], or -1 when the line ends first.
func angleDestEnd(b []byte, k int) int {
	for m := k + 1; m < len(b) && b[m] != '\n'; m++ {
		if b[m] == '\\' && m+1 < len(b) && isPunct(b[m+1]) {
			m++
			continue
		}
		if b[m] == '>' {
			return m
		}
	}
	return -1
}

// plainDestEnd returns where a link destination without angle brackets,
// starting at b[k], ends: at white space or at a ')' that closes more
// parentheses than the destination opened.
func plainDestEnd(b []byte, k int) int {
	opened, m := 0, k
	for m < len(b) {
		c := b[m]
		if c == '\\' && m+1 < len(b) && isPunct(b[m+1]) {
			m += 2
			continue
		}
		if c == '(' {
			opened++
		} else if c == ')' {
			opened--
			if opened < 0 {
				break
			}
		} else if isSpace(c) {
			break
		}
		m++
	}
	return m
}
