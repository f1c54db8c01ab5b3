package search

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/pattern"
)

const (
	// DefaultFileLimit caps search_files and find_files results.
	DefaultFileLimit = 500
	// MaxFileLimit is the largest limit a client may ask for.
	MaxFileLimit = 10000
)

// GlobQuery is one search_files call.
type GlobQuery struct {
	Pattern string
	// Path is the folder the pattern is relative to ("" = vault root).
	Path            string
	CaseInsensitive bool
	// IgnoreAccents matches names ignoring accents and Unicode form too
	// (and case): for the hint of an empty answer.
	IgnoreAccents bool
	// Limit caps the paths returned; 0 means DefaultFileLimit.
	Limit int
}

// GlobResult lists matching files.
type GlobResult struct {
	// Paths are vault-relative, in path order, at most the limit.
	Paths []string
	// Total counts every matching file.
	Total int
}

// Glob finds the files whose path matches a glob (see compileGlob).
func (e *Engine) Glob(ctx context.Context, q GlobQuery) (*GlobResult, error) {
	g, err := compileGlob("pattern", q.Pattern, q.CaseInsensitive)
	if err != nil {
		return nil, err
	}
	if q.IgnoreAccents {
		g.ignoreAccents()
	}
	dir, err := e.folder(ctx, q.Path)
	if err != nil {
		return nil, err
	}
	var paths []string
	n := 0
	fromMemory := e.memoryFiles(ctx, dir, func(rel string) bool {
		if n++; n%256 == 0 && ctx.Err() != nil {
			return false
		}
		if g.match(within(dir.Rel, rel)) {
			paths = append(paths, rel)
		}
		return true
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !fromMemory {
		var mu sync.Mutex
		err = walkFiles(ctx, e.newGuard(), e.v, dir, e.workers, nil, func(f fileRef) {
			if g.match(within(dir.Rel, f.rel)) {
				mu.Lock()
				paths = append(paths, f.rel)
				mu.Unlock()
			}
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(paths, comparePaths)
	return &GlobResult{Paths: paths[:min(len(paths), limitOr(q.Limit))], Total: len(paths)}, nil
}

func limitOr(limit int) int {
	if limit <= 0 {
		return DefaultFileLimit
	}
	return limit
}

// FindQuery is one find_files call. Zero values mean "no filter".
type FindQuery struct {
	Path string
	// Name filters file names: a glob when it holds *, ?, [ or {,
	// otherwise a substring; both ignore case. A glob without a '.'
	// also matches names less their extension ("Meeting*" finds
	// "Meeting notes.md").
	Name string
	// IgnoreAccents matches Name ignoring accents and Unicode form: for
	// the hint of an empty answer.
	IgnoreAccents bool
	// ModifiedAfter keeps files modified at or after it; ModifiedBefore
	// files modified strictly before it.
	ModifiedAfter, ModifiedBefore time.Time
	// MinSize and MaxSize bound the size in bytes, inclusive; MaxSize < 0
	// means no upper bound.
	MinSize, MaxSize int64
	// Limit caps the files returned; 0 means DefaultFileLimit.
	Limit int
}

// FoundFile is one file find_files reports.
type FoundFile struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// FindResult lists the files found.
type FindResult struct {
	Files []FoundFile // in path order, at most the limit
	Total int         // every file that passed the filters
}

// Find lists the files under a folder that pass every filter.
func (e *Engine) Find(ctx context.Context, q FindQuery) (*FindResult, error) {
	dir, err := e.folder(ctx, q.Path)
	if err != nil {
		return nil, err
	}
	var name func(string) bool
	if err := pattern.CheckLength("name", q.Name, pattern.MaxGlob); err != nil {
		return nil, invalidInput("%s: no file name is that long", err)
	}
	if q.Name != "" {
		if strings.ContainsAny(q.Name, "*?[{") {
			g, err := compileGlob("name", q.Name, true)
			if err != nil {
				return nil, err
			}
			g.matchStems()
			if q.IgnoreAccents {
				g.ignoreAccents()
			}
			name = func(base string) bool { return g.match(base) }
		} else if q.IgnoreAccents {
			sub := vault.LooseName(q.Name)
			name = func(base string) bool { return strings.Contains(vault.LooseName(base), sub) }
		} else {
			sub := vault.FoldName(q.Name)
			name = func(base string) bool { return strings.Contains(vault.FoldName(base), sub) }
		}
	}
	if !q.ModifiedAfter.IsZero() && !q.ModifiedBefore.IsZero() && !q.ModifiedAfter.Before(q.ModifiedBefore) {
		return nil, invalidInput("modified_after (%s) must be earlier than modified_before (%s)",
			q.ModifiedAfter.UTC().Format(time.RFC3339), q.ModifiedBefore.UTC().Format(time.RFC3339))
	}
	if q.MinSize < 0 {
		return nil, invalidInput("size_min must not be negative")
	}
	if q.MaxSize >= 0 && q.MinSize > q.MaxSize {
		return nil, invalidInput("size_min (%d) is larger than size_max (%d)", q.MinSize, q.MaxSize)
	}
	var mu sync.Mutex
	var found []FoundFile
	err = walkFiles(ctx, e.newGuard(), e.v, dir, e.workers, nil, func(f fileRef) {
		if name != nil && !name(path.Base(f.rel)) {
			return
		}
		fi, err := f.info()
		if err != nil {
			return
		}
		size, mod := fi.Size(), fi.ModTime()
		switch {
		case size < q.MinSize, q.MaxSize >= 0 && size > q.MaxSize,
			!q.ModifiedAfter.IsZero() && mod.Before(q.ModifiedAfter),
			!q.ModifiedBefore.IsZero() && !mod.Before(q.ModifiedBefore):
			return
		}
		mu.Lock()
		found = append(found, FoundFile{Path: f.rel, Size: size, ModTime: mod})
		mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b FoundFile) int { return comparePaths(a.Path, b.Path) })
	return &FindResult{Files: found[:min(len(found), limitOr(q.Limit))], Total: len(found)}, nil
}

// Stats are the counts get_vault_info reports. Hidden and skipped folders
// and everything in them are never counted.
type Stats struct {
	Files    int // every regular file
	Markdown int // files ending in .md
	Folders  int // every folder below the root
	// TopFolders are the folders directly in the vault root, by name,
	// with the files anywhere inside each.
	TopFolders []FolderCount
	// RootFiles counts the files directly in the vault root.
	RootFiles int
}

// FolderCount is a folder and how many files it holds, at any depth.
type FolderCount struct {
	Name  string
	Files int
}

// Stats counts the vault's files and folders.
func (e *Engine) Stats(ctx context.Context) (*Stats, error) {
	root, err := e.v.Resolve("")
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	s := &Stats{}
	top := map[string]int{}
	// Under a scope that hides paths the walk also enters folders that
	// only might lead to visible ones. A folder counts when it is
	// visible or holds something that is, as list_directory shows it:
	// the folders are counted after the walk, from what it found.
	scope := access.From(ctx)
	hides := scope.Hides()
	var dirs []string
	shown := map[string]bool{}
	show := func(dir string) { // dir and its parents, under mu
		for ; dir != "." && dir != "" && !shown[dir]; dir = path.Dir(dir) {
			shown[dir] = true
		}
	}
	countDir := func(rel string) {
		s.Folders++
		if !strings.Contains(rel, "/") {
			if _, ok := top[rel]; !ok {
				top[rel] = 0
			}
		}
	}
	err = walkFiles(ctx, e.newGuard(), e.v, root, e.workers, func(rel string) {
		mu.Lock()
		defer mu.Unlock()
		if !hides {
			countDir(rel)
			return
		}
		dirs = append(dirs, rel)
		if scope.Visible(rel) {
			show(rel)
		}
	}, func(f fileRef) {
		first, _, nested := strings.Cut(f.rel, "/")
		md := strings.EqualFold(path.Ext(f.rel), ".md")
		mu.Lock()
		defer mu.Unlock()
		s.Files++
		if md {
			s.Markdown++
		}
		if nested {
			top[first]++
			if hides {
				show(path.Dir(f.rel))
			}
		} else {
			s.RootFiles++
		}
	})
	if err != nil {
		return nil, err
	}
	for _, rel := range dirs {
		if shown[rel] {
			countDir(rel)
		}
	}
	for name, n := range top {
		s.TopFolders = append(s.TopFolders, FolderCount{Name: name, Files: n})
	}
	slices.SortFunc(s.TopFolders, func(a, b FolderCount) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}
