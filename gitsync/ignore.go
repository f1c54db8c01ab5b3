package gitsync

import (
	"bufio"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"vaultmcp/gitsync/internal/store"
	"vaultmcp/internal/regularfile"
)

// ignorer answers "would git ignore this untracked path" from .gitignore
// files, .git/info/exclude and the user's core.excludesFile. It reads only
// the ignore files of the folders it is asked about, once each, so a commit
// of one new note costs a handful of small reads, not a vault walk.
type ignorer struct {
	root   string
	base   []gitignore.Pattern // global + info/exclude, loaded on first use
	loaded bool
	perDir map[string][]gitignore.Pattern
}

func newIgnorer(root string) *ignorer {
	return &ignorer{root: root, perDir: map[string][]gitignore.Pattern{}}
}

// ignored reports whether p (a '/'-path) is ignored, itself or through an
// ignored parent folder, as git decides it.
func (ig *ignorer) ignored(p string, isDir bool) bool {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		if ig.match(parts[:i], true) {
			return true
		}
	}
	return ig.match(parts, isDir)
}

func (ig *ignorer) match(parts []string, isDir bool) bool {
	if !ig.loaded {
		ig.loaded = true
		fs := store.NewPlainFS("/")
		if ps, err := gitignore.LoadSystemPatterns(fs); err == nil {
			ig.base = append(ig.base, ps...)
		}
		if ps, err := gitignore.LoadGlobalPatterns(fs); err == nil {
			ig.base = append(ig.base, ps...)
		}
		ig.base = append(ig.base, readPatterns(filepath.Join(ig.root, ".git", "info", "exclude"), nil)...)
	}
	ps := append([]gitignore.Pattern(nil), ig.base...)
	for i := 0; i < len(parts); i++ {
		dir := parts[:i]
		key := strings.Join(dir, "/")
		dps, ok := ig.perDir[key]
		if !ok {
			dps = readPatterns(filepath.Join(ig.root, filepath.FromSlash(key), ".gitignore"), dir)
			ig.perDir[key] = dps
		}
		ps = append(ps, dps...)
	}
	if len(ps) == 0 {
		return false
	}
	return gitignore.NewMatcher(ps).Match(parts, isDir)
}

// readPatterns parses one ignore file; a missing file has no patterns.
func readPatterns(file string, domain []string) []gitignore.Pattern {
	f, _, err := regularfile.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	dom := append([]string(nil), domain...)
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, dom))
	}
	return ps
}
