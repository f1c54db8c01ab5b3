package search

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"vaultmcp/vault"
)

// glob is a compiled path pattern (doublestar syntax: *, **, ?, [a-z],
// {a,b}). A pattern without '/' matches a file's name at any depth, as
// ripgrep's -g and .gitignore do; a pattern with '/' matches the path
// relative to the search folder; a leading '/' anchors a name pattern to
// the search folder itself ("/*.md": only its direct files).
type glob struct {
	pattern  string
	baseOnly bool // match the file name only
	fold     bool // case-insensitive
	loose    bool // accents ignored too (see ignoreAccents)
	// stem also matches the name without its extension (see
	// matchStems).
	stem bool
}

// ignoreAccents makes g compare names as vault.LooseName spells them:
// lower case, accents dropped ("cafe*" matches "Café crème.md").
func (g *glob) ignoreAccents() {
	g.loose, g.fold = true, true
	g.pattern = vault.LooseName(g.pattern)
}

// matchStems makes a name pattern without an extension (no '.') also
// match a file's name less its extension, as a person means "Meeting*
// 2024" to find "Meeting notes 2024.md".
func (g *glob) matchStems() {
	g.stem = g.baseOnly && !strings.Contains(g.pattern, ".")
}

const (
	// maxPatternBytes caps a glob's length. Real patterns are short; a long
	// one is a mistake or an attack on the matcher.
	maxPatternBytes = 1024
	// maxAlternatives caps the names a pattern's braces expand to. The
	// matcher tries each expansion against each name by backtracking, so
	// "{?,??}" written 22 times (4 million expansions) takes seconds per
	// file name; 128 keeps the worst case near 40 µs per name, while
	// "*.{md,png,jpg}" or "{2024,2025}-{01,02,…,12}*" stay well inside.
	maxAlternatives = 128
)

// compileGlob validates and prepares a pattern. what names the argument
// in errors ("pattern", "include_pattern").
func compileGlob(what, pattern string, caseInsensitive bool) (*glob, error) {
	if strings.TrimSpace(pattern) == "" {
		return nil, invalidInput("%s is empty: give a glob such as \"**/*.md\" or \"Daily Notes/2025-*\"", what)
	}
	if strings.ContainsRune(pattern, 0) {
		return nil, invalidInput("%s contains a NUL byte", what)
	}
	if len(pattern) > maxPatternBytes {
		return nil, invalidInput("%s is %d bytes long, more than the %d allowed: use a shorter glob", what, len(pattern), maxPatternBytes)
	}
	p := pattern
	g := &glob{fold: caseInsensitive}
	anchored := false
	for {
		switch {
		case strings.HasPrefix(p, "./"):
			p, anchored = p[2:], true
			continue
		case strings.HasPrefix(p, "/"):
			p, anchored = p[1:], true
			continue
		}
		break
	}
	if p == "" {
		return nil, invalidInput("%s %q matches no file name: add a name pattern such as \"*.md\"", what, pattern)
	}
	if !doublestar.ValidatePattern(p) {
		return nil, invalidInput("invalid %s %q: check for an unclosed '[' or '{', or a trailing '\\'", what, pattern)
	}
	if n := expansions(p, maxAlternatives); n > maxAlternatives {
		return nil, invalidInput("%s %q has too many {…} alternatives (more than %d names once expanded): use fewer braces, or several searches", what, pattern, maxAlternatives)
	}
	g.baseOnly = !anchored && !strings.Contains(p, "/")
	// Patterns and names are compared in NFC (see vault.NFC): a pattern
	// typed composed finds names stored decomposed, and the other way
	// round.
	if caseInsensitive {
		p = vault.FoldName(p)
	} else {
		p = vault.NFC(p)
	}
	g.pattern = p
	return g, nil
}

// match reports whether the file at rel (relative to the search folder)
// matches.
func (g *glob) match(rel string) bool {
	name := rel
	if g.baseOnly {
		name = path.Base(rel)
	}
	switch {
	case g.loose:
		name = vault.LooseName(name)
	case g.fold:
		name = vault.FoldName(name)
	default:
		name = vault.NFC(name)
	}
	if doublestar.MatchUnvalidated(g.pattern, name) {
		return true
	}
	if ext := path.Ext(name); g.stem && ext != "" && ext != name {
		return doublestar.MatchUnvalidated(g.pattern, name[:len(name)-len(ext)])
	}
	return false
}

// within returns rel relative to the search folder dir ("" = vault root).
func within(dir, rel string) string {
	if dir == "" {
		return rel
	}
	return strings.TrimPrefix(rel[len(dir):], "/")
}

// comparePaths orders vault paths the way a walk visits them, folder by
// folder, names compared in NFC (see vault.ComparePaths).
func comparePaths(a, b string) int { return vault.ComparePaths(a, b) }

// expansions counts the patterns the brace groups of a valid pattern
// expand to ("{a,b}{c,d,e}" is 6), stopping once the count passes limit.
// Escapes and character classes are skipped as the matcher skips them.
func expansions(p string, limit int) int {
	n, _ := braceSeq(p, 0, false, limit)
	return n
}

// braceSeq counts the expansions of the sequence starting at p[i], up to
// the end (or, inside braces, up to the ',' or '}' that ends it), and
// returns where it stopped.
func braceSeq(p string, i int, inside bool, limit int) (int, int) {
	n := 1
	for i < len(p) {
		switch p[i] {
		case '\\':
			i += 2
		case '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				return n, len(p)
			}
			i += j + 2
		case '{':
			alts, next := braceAlts(p, i+1, limit)
			n = min(n*alts, limit+1)
			i = next
		case ',', '}':
			if inside {
				return n, i
			}
			i++
		default:
			i++
		}
	}
	return n, i
}

// braceAlts sums the expansions of the alternatives of the brace group
// whose content starts at p[i], returning the index after its '}'.
func braceAlts(p string, i, limit int) (int, int) {
	total := 0
	for {
		n, next := braceSeq(p, i, true, limit)
		total = min(total+n, limit+1)
		if next >= len(p) {
			return total, next
		}
		if p[next] == '}' {
			return total, next + 1
		}
		i = next + 1 // past ','
	}
}
