package search

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"vaultmcp/vault"
	"vaultmcp/vault/pattern"
)

// matcher finds the lines of a text that match one grep query. Lines are
// what lies between '\n's; a trailing '\r' (CRLF files) is not part of
// the line. Every match lies within one line.
type matcher struct {
	literal bool // the query is plain text, not a regexp
	fold    bool // case-insensitive
	// ref decides whether one line (without its line break) matches; it
	// is the query as the client wrote it, (?i) when fold.
	ref *regexp.Regexp
	// scan finds candidate lines in a whole text when no prefilter
	// applies: ref rewritten so that no match crosses a line break and ^,
	// $ hold at line ends (see lineSafe). Every line ref matches holds a
	// scan match starting in it or earlier on the same line.
	scan *regexp.Regexp
	pre  prefilter
	// lit is pre.best(), the literal searched for first; anyLits are
	// pre.any, both as bytes.
	lit     finder
	anyLits []finder
	// loose, when set, replaces all of the above: the query ignoring
	// accents and form (GrepQuery.IgnoreAccents).
	loose *looseFinder
}

func invalidInput(format string, args ...any) error {
	return &vault.Error{Kind: vault.ErrInvalidInput, Msg: fmt.Sprintf(format, args...)}
}

// compileQuery builds the matcher for a grep query.
func compileQuery(query string, isRegex, caseSensitive bool) (*matcher, error) {
	if query == "" {
		return nil, invalidInput("query is empty: give the text or regular expression to search for")
	}
	// Before anything reads the query through: a huge one costs seconds
	// and hundreds of megabytes to compile.
	if err := pattern.CheckLength("query", query, pattern.MaxQuery); err != nil {
		return nil, invalidInput("%s: search for a shorter text", err)
	}
	if !utf8.ValidString(query) {
		return nil, invalidInput("query is not valid UTF-8 text")
	}
	m := &matcher{literal: !isRegex, fold: !caseSensitive}
	prefix := ""
	if m.fold {
		prefix = "(?i)"
	}
	if m.literal {
		if strings.ContainsAny(query, "\n") {
			return nil, invalidInput("query contains a line break: grep matches within single lines, so search for one line of the text")
		}
		forms := spellings(query)
		quoted := make([]string, len(forms))
		lits := make([]string, len(forms))
		for i, f := range forms {
			quoted[i], lits[i] = regexp.QuoteMeta(f), f
			if m.fold {
				lits[i] = foldString(f)
			}
		}
		m.ref = regexp.MustCompile(prefix + strings.Join(quoted, "|"))
		m.scan = m.ref
		if len(lits) == 1 {
			m.pre = prefilter{must: lits}
		} else {
			m.pre = prefilter{any: lits}
		}
		m.prepare()
		return m, nil
	}
	flags := syntax.Perl
	if m.fold {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(query, flags)
	if err != nil {
		return nil, invalidInput("invalid regular expression %q: %s (set is_regex to false to search for the text as it is)", query, describeSyntaxError(err))
	}
	if err := pattern.CheckProgram("regular expression", tree); err != nil {
		return nil, invalidInput("%s", err)
	}
	if hasNewline(tree) {
		return nil, invalidInput("regular expression %q contains a line break (\\n): grep matches within single lines", query)
	}
	ref, err := regexp.Compile(prefix + query)
	if err != nil {
		return nil, invalidInput("invalid regular expression %q: %s", query, describeSyntaxError(err))
	}
	m.ref = ref
	m.pre = extractPrefilter(tree, m.fold)
	scanTree, err := syntax.Parse(query, flags)
	if err != nil {
		return nil, invalidInput("invalid regular expression %q: %s", query, describeSyntaxError(err))
	}
	scan, err := regexp.Compile(lineSafe(scanTree).String())
	if err != nil {
		// Should not happen: the rewrite only narrows classes and swaps
		// anchors. The reference regexp still gives correct results.
		scan = ref
	}
	m.scan = scan
	m.prepare()
	return m, nil
}

// spellings returns a plain-text query in every Unicode normalization
// form that spells it differently (composed "é", decomposed "e" plus a
// combining accent): a note pasted from macOS or a PDF stores the other
// form, and a search should not depend on it. An ASCII query has one
// spelling, so the common case costs nothing.
func spellings(query string) []string {
	out := []string{query}
	if isASCII(query) {
		return out
	}
	for _, f := range []norm.Form{norm.NFC, norm.NFD} {
		if s := f.String(query); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// prepare converts the prefilter to the byte slices the search loops use.
func (m *matcher) prepare() {
	m.lit = newFinder([]byte(m.pre.best()), m.fold)
	for _, s := range m.pre.any {
		f := newFinder([]byte(s), m.fold)
		if f.none {
			// One alternative cannot be scanned for: none can stand in
			// for the others.
			m.anyLits, m.lit = nil, f
			return
		}
		m.anyLits = append(m.anyLits, f)
	}
}

// describeSyntaxError phrases a regexp/syntax error without Go's
// "error parsing regexp: " preamble.
func describeSyntaxError(err error) string {
	if se, ok := err.(*syntax.Error); ok {
		msg := string(se.Code)
		if se.Code == syntax.ErrInvalidRepeatSize {
			// Go's own bound, which the code alone does not explain.
			msg += " (a count is at most 1000, and nested repeats multiply: (a{100}){100} counts 10,000)"
		}
		if se.Expr != "" {
			msg += " in `" + se.Expr + "`"
		}
		return msg
	}
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// lineSafe rewrites a parsed regexp, in place, so that searching a whole
// text finds, for every line the original matches on its own, a match on
// that line: '.' and classes no longer match '\n', \A and ^ match at any
// line start, and \z and $ at any line end (before an optional '\r').
func lineSafe(re *syntax.Regexp) *syntax.Regexp {
	for i, sub := range re.Sub {
		re.Sub[i] = lineSafe(sub)
	}
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		re.Rune = withoutNewline(re.Rune)
		if len(re.Rune) == 0 {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
		re.Flags &^= syntax.OneLine
	case syntax.OpEndText, syntax.OpEndLine:
		cr := &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{'\r'}}
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
			{Op: syntax.OpQuest, Sub: []*syntax.Regexp{cr}},
			{Op: syntax.OpEndLine},
		}}
	}
	return re
}

// withoutNewline removes '\n' from a class given as rune ranges.
func withoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

// hit is one matching line: its number (1-based) and byte range in the
// text, without the line break.
type hit struct {
	num        int
	start, end int
}

// lineEnd returns the end of the line holding position i.
func lineEnd(text []byte, i int) int {
	if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(text)
}

// stripCR drops a trailing '\r'.
func stripCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// lines appends text's matching lines to hits.
func (m *matcher) lines(text []byte, hits []hit) []hit {
	if m.loose != nil {
		return m.loose.lines(text, hits)
	}
	c := lineCounter{text: text, num: 1}
	if m.pre.empty() || m.lit.none {
		return m.scanLines(text, &c, hits)
	}
	finders := m.anyLits
	if len(finders) == 0 {
		finders = []finder{m.lit}
	}
	// next[k] is finder k's next candidate at or after pos (-2: not
	// searched yet, -1: none left). On the stack: this runs once per
	// text, 100,000 times per search in a large vault.
	var nextBuf [maxExact]int
	var sureBuf [maxExact]bool
	next, sure := nextBuf[:0], sureBuf[:0]
	if len(finders) > maxExact {
		next, sure = make([]int, 0, len(finders)), make([]bool, 0, len(finders))
	}
	next, sure = next[:len(finders)], sure[:len(finders)]
	for k := range next {
		next[k] = -2
	}
	for pos := 0; pos < len(text); {
		i, isSure := -1, false
		for k := range finders {
			if next[k] == -2 || (next[k] >= 0 && next[k] < pos) {
				next[k], sure[k] = finders[k].find(text, pos)
			}
			if next[k] >= 0 && (i < 0 || next[k] < i) {
				i, isSure = next[k], sure[k]
			}
		}
		if i < 0 {
			break
		}
		start := pos + bytes.LastIndexByte(text[pos:i], '\n') + 1
		end := lineEnd(text, i)
		if (isSure && m.literal) || m.ref.Match(stripCR(text[start:end])) {
			hits = append(hits, hit{num: c.at(start), start: start, end: end})
		}
		pos = end + 1
	}
	return hits
}

// scanLines is lines without a prefilter: the line-safe regexp runs over
// the whole text, and each line it lands on is checked with ref.
func (m *matcher) scanLines(text []byte, c *lineCounter, hits []hit) []hit {
	for pos := 0; pos < len(text); {
		loc := m.scan.FindIndex(text[pos:])
		if loc == nil {
			break
		}
		s := pos + loc[0]
		start := pos + bytes.LastIndexByte(text[pos:s], '\n') + 1
		if start >= len(text) {
			break // an empty match after the final line break
		}
		end := lineEnd(text, s)
		if m.ref.Match(stripCR(text[start:end])) {
			hits = append(hits, hit{num: c.at(start), start: start, end: end})
		}
		pos = end + 1
	}
	return hits
}

// lineCounter numbers lines met in increasing order of position.
type lineCounter struct {
	text []byte
	pos  int // a line start
	num  int // its number
}

// at returns the number of the line starting at start (>= the last one).
func (c *lineCounter) at(start int) int {
	c.num += bytes.Count(c.text[c.pos:start], []byte{'\n'})
	c.pos = start
	return c.num
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
