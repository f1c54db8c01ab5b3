package search

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// prefilter is what every match of a regexp must contain, found with
// bytes.Index long before the (much slower) regexp engine runs: either
// all of must, or at least one of any. Both empty means no prefilter.
// In a case-insensitive search the strings are folded (see fold.go) and
// are looked for in the folded copy of the text.
type prefilter struct {
	must []string
	any  []string
}

// empty reports whether the prefilter cannot narrow anything down.
func (p prefilter) empty() bool { return len(p.must) == 0 && len(p.any) == 0 }

// best returns the single literal to search for first: the longest
// required one (longer literals are rarer and found faster).
func (p prefilter) best() string {
	best := ""
	for _, s := range p.must {
		if len(s) > len(best) {
			best = s
		}
	}
	return best
}

const (
	// maxExact bounds the sets of exact strings tracked per node: past it
	// the set is reduced to what all its members share.
	maxExact = 16
	// maxClassRunes is the largest character class expanded into a set.
	maxClassRunes = 8
)

// litInfo describes what any match of a subexpression looks like.
type litInfo struct {
	// exact, when non-nil, lists every string the subexpression can
	// match (so "" is in it for subexpressions that may match nothing).
	exact []string
	// must lists strings every match contains.
	must []string
}

// extractPrefilter computes the prefilter of a parsed regexp. fold says
// the search is case-insensitive: literals are folded, and literals the
// pattern itself marks case-insensitive ((?i) inside a case-sensitive
// search) are treated as unknown.
func extractPrefilter(re *syntax.Regexp, fold bool) prefilter {
	info := analyze(re.Simplify(), fold)
	must := dedupe(append(info.must, reduce(info.exact)...))
	must = slices.DeleteFunc(must, func(s string) bool { return s == "" })
	p := prefilter{must: must}
	best := p.best()
	// A set of alternatives (foo|bar) is worth searching for when each is
	// longer than the best single required literal.
	if n := len(info.exact); n > 1 && n <= maxExact && minLen(info.exact) > len(best) {
		return prefilter{any: dedupe(info.exact)}
	}
	if best == "" {
		return prefilter{}
	}
	return p
}

func analyze(re *syntax.Regexp, fold bool) litInfo {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []string{""}}
	case syntax.OpLiteral:
		runes := make([]litInfo, len(re.Rune))
		for i, r := range re.Rune {
			runes[i] = runeInfo(r, fold, re.Flags&syntax.FoldCase != 0)
		}
		return concatInfos(runes)
	case syntax.OpCharClass:
		return classInfo(re.Rune, fold)
	case syntax.OpCapture:
		return analyze(re.Sub[0], fold)
	case syntax.OpQuest:
		sub := analyze(re.Sub[0], fold)
		if sub.exact != nil && len(sub.exact) < maxExact {
			return litInfo{exact: dedupe(append(slices.Clone(sub.exact), ""))}
		}
		return litInfo{}
	case syntax.OpPlus:
		sub := analyze(re.Sub[0], fold)
		return litInfo{must: append(sub.must, reduce(sub.exact)...)}
	case syntax.OpRepeat:
		if re.Min == 0 {
			return litInfo{}
		}
		sub := analyze(re.Sub[0], fold)
		return litInfo{must: append(sub.must, reduce(sub.exact)...)}
	case syntax.OpConcat:
		subs := make([]litInfo, len(re.Sub))
		for i, sub := range re.Sub {
			subs[i] = analyze(sub, fold)
		}
		return concatInfos(subs)
	case syntax.OpAlternate:
		return alternateInfo(re.Sub, fold)
	}
	// OpNoMatch, OpAnyChar, OpAnyCharNotNL, OpStar: nothing is known.
	return litInfo{}
}

// runeInfo describes one rune of a literal. In a case-sensitive search a
// rune the pattern marks case-insensitive ((?i), or a class like [Hh],
// which the parser turns into one) may be any member of its case orbit.
func runeInfo(r rune, fold, foldCase bool) litInfo {
	switch {
	case r == utf8.RuneError:
		// Go's regexp matches U+FFFD against any invalid byte, which the
		// text does not contain literally.
		return litInfo{}
	case fold:
		return litInfo{exact: []string{string(canon(r))}}
	case foldCase:
		exact := []string{string(r)}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			exact = append(exact, string(f))
		}
		return litInfo{exact: dedupe(exact)}
	}
	return litInfo{exact: []string{string(r)}}
}

func classInfo(ranges []rune, fold bool) litInfo {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxClassRunes*4 {
			return litInfo{}
		}
	}
	set := map[string]struct{}{}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if r == utf8.RuneError || r > utf8.MaxRune {
				return litInfo{}
			}
			member := r
			if fold {
				member = canon(r)
			}
			set[string(member)] = struct{}{}
		}
	}
	if len(set) == 0 || len(set) > maxClassRunes {
		return litInfo{}
	}
	exact := make([]string, 0, len(set))
	for s := range set {
		exact = append(exact, s)
	}
	slices.Sort(exact)
	return litInfo{exact: exact}
}

// concatInfos joins the parts' exact sets as long as they stay small;
// where the chain breaks, what the run so far shares becomes required.
func concatInfos(subs []litInfo) litInfo {
	var out litInfo
	cur := []string{""} // exact strings of the current unbroken run
	broken := false
	for _, si := range subs {
		out.must = append(out.must, si.must...)
		if cur != nil && si.exact != nil && len(cur)*len(si.exact) <= maxExact {
			cur = product(cur, si.exact)
			continue
		}
		broken = true
		if cur != nil {
			out.must = append(out.must, reduce(cur)...)
		}
		cur = si.exact // nil when unknown: the next run starts fresh
	}
	if !broken {
		out.exact = cur
		return out
	}
	if cur != nil {
		out.must = append(out.must, reduce(cur)...)
	}
	return out
}

func alternateInfo(subs []*syntax.Regexp, fold bool) litInfo {
	infos := make([]litInfo, len(subs))
	allExact := true
	var union []string
	for i, sub := range subs {
		infos[i] = analyze(sub, fold)
		if infos[i].exact == nil {
			allExact = false
		}
		union = append(union, infos[i].exact...)
	}
	if allExact {
		if union = dedupe(union); len(union) <= maxExact {
			return litInfo{exact: union}
		}
	}
	// Only what every branch requires is required.
	var common []string
	for i, in := range infos {
		req := dedupe(append(slices.Clone(in.must), reduce(in.exact)...))
		if i == 0 {
			common = req
			continue
		}
		common = slices.DeleteFunc(common, func(s string) bool { return !slices.Contains(req, s) })
	}
	return litInfo{must: common}
}

func product(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out)
}

// reduce returns what every string of an exact set contains: the string
// itself when there is one, else the longest common prefix and suffix.
func reduce(exact []string) []string {
	switch len(exact) {
	case 0:
		return nil
	case 1:
		if exact[0] == "" {
			return nil
		}
		return []string{exact[0]}
	}
	prefix, suffix := exact[0], exact[0]
	for _, s := range exact[1:] {
		prefix = commonPrefix(prefix, s)
		suffix = commonSuffix(suffix, s)
	}
	var out []string
	for _, s := range []string{prefix, suffix} {
		if s != "" && utf8.ValidString(s) {
			out = append(out, s)
		}
	}
	return out
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	// Keep whole runes only, so the literal is valid UTF-8.
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return a[:n]
}

func commonSuffix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	s := a[len(a)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

func dedupe(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

func minLen(ss []string) int {
	m := -1
	for _, s := range ss {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return max(m, 0)
}

// hasNewline reports whether a literal in the pattern contains a line
// break, which no single line can match.
func hasNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && strings.ContainsRune(string(re.Rune), '\n') {
		return true
	}
	for _, sub := range re.Sub {
		if hasNewline(sub) {
			return true
		}
	}
	return false
}
