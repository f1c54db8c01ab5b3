package bases

import (
	"context"
	"path"
	"strings"
	"time"
)

// File is what a base sees of one file of the vault. A Source builds it;
// the engine only reads it.
type File struct {
	// Path is the vault-relative path ("Projects/Alpha.md").
	Path string
	// Size is in bytes; MTime and CTime come from the file system.
	Size         int64
	MTime, CTime time.Time
	// Props are the frontmatter properties (none for a file that is not
	// a note), in the order written, as FromYAML converts them. Held in
	// the File, not behind a pointer: a filter reads them on every note,
	// and each pointer followed is a likely cache miss.
	Props ObjectValue
	// Tags are the note's tags, frontmatter and inline, as spelled,
	// without '#'.
	Tags []string
	// Links are the note's links, frontmatter included, and Embeds its
	// embeds, in order.
	Links, Embeds []FileLink
}

// FileLink is one link of a note.
type FileLink struct {
	// Target is the link's path or name as written ("Note", "dir/Note.md").
	Target string
	// Path is the file it resolves to; "" when it resolves to nothing.
	Path string
}

// Name is the file's name with its extension.
func (f *File) Name() string { return path.Base(f.Path) }

// Ext is the extension without the dot ("md").
func (f *File) Ext() string { return strings.TrimPrefix(path.Ext(f.Path), ".") }

// Basename is the name without the extension.
func (f *File) Basename() string { n := f.Name(); return n[:len(n)-len(path.Ext(n))] }

// Folder is the parent folder's path; "/" for the vault's root, as
// Obsidian names it.
func (f *File) Folder() string {
	d := path.Dir(f.Path)
	if d == "." {
		return "/"
	}
	return d
}

// Source is where the engine gets the vault's files. The server's index
// supplies one; tests supply a slice.
type Source interface {
	// Files calls fn with every file a base ranges over, in order of
	// path (a view's order among equal sort keys), until fn returns
	// false. The *File must stay valid and unchanged after the call (a
	// Source keeps one per version of a file).
	Files(ctx context.Context, fn func(*File) bool) error
	// File returns the file at a vault path; ok is false when there is
	// none.
	File(path string) (f *File, ok bool)
	// Resolve finds the file a link target written in the file at from
	// names, as Obsidian resolves links.
	Resolve(target, from string) (path string, ok bool)
	// Backlinks lists the paths of the files linking to path.
	Backlinks(path string) []string
}

// Columns is what a Source may add so that a filter over every file reads
// values side by side instead of following each file's pointers: the
// query's properties and tags, one entry per file in Files' order. A nil
// answer means the Source has none for that name, and the engine reads
// the files instead. The slices must not be changed.
type Columns interface {
	// Column returns each file's value of the note property name (Null
	// when it has none).
	Column(name string) []Value
	// Tagged returns, for each file, whether HasTag holds for tag.
	Tagged(tag string) []bool
}
