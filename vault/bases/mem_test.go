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
	// columnar makes it offer Columns, as the index's source does.
	columnar bool
}

// Column is bases.Columns' when columnar is set.
func (m *memSource) Column(name string) []Value {
	if !m.columnar {
		return nil
	}
	col := make([]Value, len(m.files))
	for i, f := range m.files {
		col[i], _ = f.Props.Get(name)
	}
	return col
}

// Tagged is bases.Columns'.
func (m *memSource) Tagged(tag string) []bool {
	if !m.columnar {
		return nil
	}
	t := make([]bool, len(m.files))
	for i, f := range m.files {
		t[i] = HasTag(f.Tags, tag)
	}
	return t
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
