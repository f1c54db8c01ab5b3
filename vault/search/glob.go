package search

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"vaultmcp/vault"
	"vaultmcp/vault/pattern"
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

// compileGlob validates and prepares a pattern. what names the argument
// in errors ("pattern", "include_pattern").
func compileGlob(what, text string, caseInsensitive bool) (*glob, error) {
	if strings.TrimSpace(text) == "" {
		return nil, invalidInput("%s is empty: give a glob such as \"**/*.md\" or \"Daily Notes/2025-*\"", what)
	}
	if strings.ContainsRune(text, 0) {
		return nil, invalidInput("%s contains a NUL byte", what)
	}
	if err := pattern.CheckGlob(what, text); err != nil {
		return nil, invalidInput("%s", err)
	}
	p := text
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
		return nil, invalidInput("%s %q matches no file name: add a name text such as \"*.md\"", what, text)
	}
	if !doublestar.ValidatePattern(p) {
		return nil, invalidInput("invalid %s %q: check for an unclosed '[' or '{', or a trailing '\\'", what, text)
	}
	g.baseOnly = !anchored && !strings.Contains(p, "/")
	// Patterns and names are compared in NFC (see vault.NFC): a text
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
