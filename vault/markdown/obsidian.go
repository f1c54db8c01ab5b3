package markdown

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The second inline pass finds Obsidian's syntax in the text the first pass
// left as text: %%comments%% and $$math$$ (which may span blocks), $math$,
// wikilinks and embeds, the Markdown links of the first pass, #tags and the
// ^block-id that ends a paragraph.

var pass2Special = [256]bool{'\\': true, '%': true, '$': true, '!': true, '[': true, '#': true, '^': true}

func (p *parser) pass2(lf *leaf, b []byte) {
	if lf.kind == leafHeading {
		p.heading(lf, b)
	}
	idPos, id := -1, []byte(nil)
	if lf.kind == leafParagraph {
		idPos, id = blockIDCandidate(b)
	}
	regions := p.regions
	p.noMathClose = false
	ri, mi := 0, 0
	i := 0
	for i < len(b) {
		if p.inComment || p.inMath {
			delim := "%%"
			if !p.inComment {
				delim = "$$"
			}
			j := findOutside(b, i, delim, regions)
			if j < 0 {
				return
			}
			p.inComment, p.inMath = false, false
			i = j + 2
			continue
		}
		for ri < len(regions) && regions[ri].end <= i {
			ri++
		}
		limit := len(b)
		if ri < len(regions) {
			if regions[ri].start <= i {
				i = regions[ri].end
				continue
			}
			limit = regions[ri].start
		}
		for i < limit && !pass2Special[b[i]] {
			i++
		}
		if i >= limit {
			i = limit
			continue
		}
		switch b[i] {
		case '\\':
			if i+1 < limit && isPunct(b[i+1]) {
				i += 2
			} else {
				i++
			}
		case '%':
			if i+1 < limit && b[i+1] == '%' {
				p.inComment = true
				i += 2
			} else {
				i++
			}
		case '$':
			i = p.math(b, i, regions)
		case '!', '[':
			embed := b[i] == '!'
			s := i
			if embed {
				s++
			}
			if s+1 < limit && b[s] == '[' && b[s+1] == '[' {
				if end := p.wikilink(b, i, s, limit, embed); end > 0 {
					i = end
					continue
				}
			}
			for mi < len(p.mdLinks) && p.mdLinks[mi].start < i {
				mi++
			}
			if mi < len(p.mdLinks) && p.mdLinks[mi].start == i {
				p.markdownLink(b, &p.mdLinks[mi])
				mi++
			}
			if embed && s < limit && b[s] == '[' {
				i = s + 1
			} else {
				i++
			}
		case '#':
			i = p.tag(b, i, limit)
		case '^':
			if i == idPos {
				p.note.BlockIDs = append(p.note.BlockIDs, p.substr(b, i+1, i+1+len(id)))
				_, line := p.srcPos(i)
				p.note.BlockLines = append(p.note.BlockLines, line)
				p.note.BlockStarts = append(p.note.BlockStarts, p.segs[lf.first].line)
			}
			i++
		}
	}
}

// findOutside returns the first index >= i of delim in b that is not inside
// a region, or -1.
func findOutside(b []byte, i int, delim string, regions []region) int {
	ri := 0
	for i < len(b) {
		k := bytes.Index(b[i:], []byte(delim))
		if k < 0 {
			return -1
		}
		j := i + k
		for ri < len(regions) && regions[ri].end <= j {
			ri++
		}
		if ri == len(regions) || regions[ri].start > j {
			return j
		}
		i = regions[ri].end
	}
	return -1
}

// math handles a '$' at b[i] and returns where scanning resumes.
func (p *parser) math(b []byte, i int, regions []region) int {
	if i+1 < len(b) && b[i+1] == '$' {
		// $$ opens display math when a closing $$ follows somewhere.
		at, _ := p.srcPos(i)
		if bytes.Contains(p.src[at+2:], []byte("$$")) {
			p.inMath = true
		}
		return i + 2
	}
	// $inline$: no space after the opener, none before the closer, and no
	// digit right after it (so "$5 and $6" is not math). When no closer
	// follows one opener, none follows a later one either.
	if i+1 >= len(b) || isSpace(b[i+1]) || p.noMathClose {
		return i + 1
	}
	ri := 0
	for j := i + 1; j < len(b); j++ {
		for ri < len(regions) && regions[ri].end <= j {
			ri++
		}
		if ri < len(regions) && regions[ri].start <= j {
			j = regions[ri].end - 1
			continue
		}
		switch b[j] {
		case '\\':
			j++
		case '$':
			if !isSpace(b[j-1]) && (j+1 >= len(b) || b[j+1] < '0' || b[j+1] > '9') {
				return j + 1
			}
		}
	}
	p.noMathClose = true
	return i + 1
}

// wikilink parses [[…]] with b[s:s+2] == "[[" (i is s-1 for an embed) and
// returns its end, or -1. limit is where the next region starts: a wikilink
// cannot contain code.
func (p *parser) wikilink(b []byte, i, s, limit int, embed bool) int {
	j := s + 2
	for ; j+1 < limit; j++ {
		c := b[j]
		if c == '\n' || c == '[' {
			return -1
		}
		if c == ']' && b[j+1] == ']' {
			break
		}
	}
	if j+1 >= limit {
		return -1
	}
	inner := b[s+2 : j]
	// target part | alias; in tables the pipe is escaped as \|
	pipe := bytes.IndexByte(inner, '|')
	targetLen := len(inner)
	if pipe >= 0 {
		targetLen = pipe
		if pipe > 0 && inner[pipe-1] == '\\' {
			targetLen--
		}
	}
	pathLen := targetLen
	fragStart, fragEnd := 0, 0
	if h := bytes.IndexByte(inner[:targetLen], '#'); h >= 0 {
		pathLen = h
		fragStart, fragEnd = trimSpaces(inner, h+1, targetLen)
	}
	tStart, tEnd := trimSpaces(inner, 0, pathLen)
	if tStart == tEnd && fragStart == fragEnd {
		return -1
	}
	end := j + 2
	start, line := p.srcPos(i)
	in := start - i + s + 2 // src offset of inner: the link lies on one line
	l := Link{
		Raw:    p.str[in : in+len(inner)],
		Target: p.str[in+tStart : in+tEnd],
		Embed:  embed,
		Style:  Wiki,
		Start:  start,
		End:    start + end - i,
		Line:   line,
		before: p.str[start : in+tStart],
		after:  p.str[in+tEnd : start+end-i],
	}
	if f := p.str[in+fragStart : in+fragEnd]; f != "" {
		if f[0] == '^' {
			l.Block = f[1:]
		} else {
			l.Heading = f
		}
	}
	if pipe >= 0 {
		as, ae := trimSpaces(inner, pipe+1, len(inner))
		l.Alias = p.str[in+as : in+ae]
	}
	p.note.Links = append(p.note.Links, l)
	return end
}

// trimSpaces narrows b[from:to] to exclude surrounding whitespace.
func trimSpaces(b []byte, from, to int) (int, int) {
	for from < to && isTrimSpace(b[from]) {
		from++
	}
	for to > from && isTrimSpace(b[to-1]) {
		to--
	}
	return from, to
}

// markdownLink records a link of the first pass when it points to a local
// file.
func (p *parser) markdownLink(b []byte, m *mdLink) {
	dest := b[m.destStart:m.destEnd]
	if len(dest) == 0 || dest[0] == '#' || isExternal(dest) {
		return
	}
	start, line := p.srcPos(m.start)
	ds, _ := p.srcPos(m.destStart)
	endSrc, _ := p.srcPos(m.end - 1)
	endSrc++
	pathLen := len(dest)
	var frag []byte
	if h := bytes.IndexByte(dest, '#'); h >= 0 {
		pathLen, frag = h, dest[h+1:]
	}
	l := Link{
		Raw:    p.str[ds : ds+len(dest)],
		Target: p.unescape(ds, pathLen),
		Alias:  p.substr(b, m.textStart, m.textEnd),
		Embed:  m.image,
		Style:  Markdown,
		Start:  start,
		End:    endSrc,
		Line:   line,
		before: p.str[start:ds],
		after:  p.str[ds+pathLen : endSrc],
	}
	if m.angle {
		l.Style = MarkdownAngle
	}
	if len(frag) > 0 {
		f := p.unescape(ds+pathLen+1, len(frag))
		if f != "" && f[0] == '^' {
			l.Block = f[1:]
		} else {
			l.Heading = f
		}
	}
	p.note.Links = append(p.note.Links, l)
}

// substr returns b[from:to] as a string, sliced from the note's source when
// it lies on one line.
func (p *parser) substr(b []byte, from, to int) string {
	if from >= to {
		return ""
	}
	s, _ := p.srcPos(from)
	e, _ := p.srcPos(to - 1)
	if e+1-s == to-from {
		return p.str[s : e+1]
	}
	return string(b[from:to])
}

// tag handles a '#' at b[i] and returns where scanning resumes.
func (p *parser) tag(b []byte, i, limit int) int {
	if i > 0 && !precededBySpace(b, i) {
		return i + 1
	}
	j := i + 1
	nonDigit := false
	for j < limit {
		c := b[j]
		if c < utf8.RuneSelf {
			if !isTagByte(c) {
				break
			}
			if c < '0' || c > '9' {
				nonDigit = true
			}
			j++
			continue
		}
		r, n := utf8.DecodeRune(b[j:limit])
		if !isTagRune(r) {
			break
		}
		if !unicode.IsDigit(r) && !unicode.IsMark(r) {
			nonDigit = true
		}
		j += n
	}
	if j == i+1 || !nonDigit {
		return j
	}
	start, line := p.srcPos(i)
	p.note.Tags = append(p.note.Tags, Tag{Name: p.str[start+1 : start+j-i], Line: line})
	return j
}

func precededBySpace(b []byte, i int) bool {
	c := b[i-1]
	if c < utf8.RuneSelf {
		return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
	}
	r, _ := utf8.DecodeLastRune(b[:i])
	return unicode.IsSpace(r)
}

func isTagByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '/'
}

// isTagRune accepts, beyond ASCII letters, digits and _-/, what Obsidian
// accepts: letters, marks and numbers of any script, and symbols such as
// emoji, but not the general and supplemental punctuation blocks.
func isTagRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isTagByte(byte(r))
	}
	if r >= 0x2000 && r <= 0x206F || r >= 0x2E00 && r <= 0x2E7F || r == utf8.RuneError {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) ||
		unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r)
}

// ValidTag reports whether name (without '#') is a tag Obsidian accepts:
// tag characters only and at least one that is not a digit.
func ValidTag(name string) bool {
	nonDigit := false
	for _, r := range name {
		if !isTagRune(r) {
			return false
		}
		if !unicode.IsDigit(r) && !unicode.IsMark(r) {
			nonDigit = true
		}
	}
	return nonDigit
}

// blockIDCandidate finds a "^id" ending the last line of b, preceded by a
// space or alone on its line.
func blockIDCandidate(b []byte) (int, []byte) {
	e := len(b)
	for e > 0 && isTrimSpace(b[e-1]) {
		e--
	}
	lineStart := bytes.LastIndexByte(b[:e], '\n') + 1
	k := e
	for k > lineStart && (isAlnum(b[k-1]) || b[k-1] == '-') {
		k--
	}
	if k == e || k-1 < lineStart || b[k-1] != '^' {
		return -1, nil
	}
	if k-1 > lineStart && b[k-2] != ' ' && b[k-2] != '\t' {
		return -1, nil
	}
	return k - 1, b[k:e]
}

// heading records a heading leaf, unless it sits in a quote or a comment.
func (p *parser) heading(lf *leaf, b []byte) {
	if lf.inQuote || p.inComment || p.inMath {
		return
	}
	from, to := trimSpaces(b, 0, len(b))
	if from == to {
		return
	}
	var text string
	if bytes.IndexByte(b[from:to], '\n') < 0 {
		text = p.substr(b, from, to)
	} else {
		text = strings.Join(strings.Fields(string(b[from:to])), " ")
	}
	p.note.Headings = append(p.note.Headings, Heading{Level: lf.level, Text: text, Line: p.segs[lf.first].line})
}
