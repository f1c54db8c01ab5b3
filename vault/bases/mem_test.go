package bases

import (
	"context"
	"path"
	"slices"
	"strings"
)

// memSource is a Source over files held in memory, resolving links by
// path or by name as Obsidian does for unique names.
type memSource struct {
	files  []*File
	byPath map[string]*File
}

func newMemSource(files ...*File) *memSource {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b *File) int { return strings.Compare(a.Path, b.Path) })
	m := &memSource{files: files, byPath: map[string]*File{}}
	for _, f := range files {
		m.byPath[f.Path] = f
	}
	for _, f := range files {
		for i, l := range f.Links {
			if p, ok := m.Resolve(l.Target, f.Path); ok {
				f.Links[i].Path = p
			}
		}
	}
	return m
}

func (m *memSource) Files(ctx context.Context, fn func(*File) bool) error {
	for _, f := range m.files {
		if !fn(f) {
			break
		}
	}
	return nil
}

func (m *memSource) File(p string) (*File, bool) {
	f, ok := m.byPath[p]
	return f, ok
}

func (m *memSource) Resolve(target, from string) (string, bool) {
	if _, ok := m.byPath[target]; ok {
		return target, true
	}
	if _, ok := m.byPath[target+".md"]; ok {
		return target + ".md", true
	}
	for _, f := range m.files {
		if strings.EqualFold(f.Basename(), path.Base(target)) || strings.EqualFold(f.Name(), path.Base(target)) {
			return f.Path, true
		}
	}
	return "", false
}

func (m *memSource) Backlinks(p string) []string {
	var out []string
	for _, f := range m.files {
		for _, l := range f.Links {
			if l.Path == p && !slices.Contains(out, f.Path) {
				out = append(out, f.Path)
			}
		}
	}
	slices.Sort(out)
	return out
}
