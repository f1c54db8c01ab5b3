package search

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
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
}

// compileGlob validates and prepares a pattern. what names the argument
// in errors ("pattern", "include_pattern").
func compileGlob(what, pattern string, caseInsensitive bool) (*glob, error) {
	if strings.TrimSpace(pattern) == "" {
		return nil, invalidInput("%s is empty: give a glob such as \"**/*.md\" or \"Daily Notes/2025-*\"", what)
	}
	if strings.ContainsRune(pattern, 0) {
		return nil, invalidInput("%s contains a NUL byte", what)
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
	g.baseOnly = !anchored && !strings.Contains(p, "/")
	if caseInsensitive {
		p = strings.ToLower(p)
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
	if g.fold {
		name = strings.ToLower(name)
	}
	return doublestar.MatchUnvalidated(g.pattern, name)
}

// within returns rel relative to the search folder dir ("" = vault root).
func within(dir, rel string) string {
	if dir == "" {
		return rel
	}
	return strings.TrimPrefix(rel[len(dir):], "/")
}

// comparePaths orders vault paths the way a walk visits them: folder by
// folder, each folder's names in byte order ("a/b" before "a-c").
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return -1
		}
		if cb == '/' {
			return 1
		}
		if ca < cb {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}
