// Package guidance reads what a vault tells the agents that work in it: the
// CLAUDE.md files (the root one is the MCP instructions; one in a folder
// holds that folder's rules) and the vault's own guide files. Everything is
// read through the vault boundary, so a CLAUDE.md that is a symlink leading
// out of the vault (git can bring one in with a pull) is never read.
//
// CLAUDE.md files are cached per folder. With a change feed, the cache is
// dropped for a folder when its CLAUDE.md, the folder itself or one of its
// ancestors is announced as changed — by our writes, pulls and outside
// edits alike. Without one nothing is cached and every call reads the disk.
package guidance

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/changes"
)

// FileName is the name of the instruction files.
const FileName = "CLAUDE.md"

// DefaultMaxBytes caps how much of one file is read when Options do not
// say.
const DefaultMaxBytes = 256 << 10

// maxCached bounds the cache: one entry per folder asked about. A client
// walking every folder of a huge vault just starts it over.
const maxCached = 4096

// truncated ends a CLAUDE.md cut at the size cap.
const truncated = "\n\n[... CLAUDE.md truncated ...]\n"

// Options configure Files. The zero value is usable.
type Options struct {
	// MaxBytes caps how much of one file is read; 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// Changes, when set, turns the cache on and keeps it fresh.
	Changes *changes.Feed
}

// File is one CLAUDE.md found on the way to a folder.
type File struct {
	// Dir is the vault-relative folder holding it, e.g. "projects/webapp".
	Dir string
	// Content is its text.
	Content string
}

// Files reads a vault's guidance files. Its methods are safe for
// concurrent use.
type Files struct {
	v      *vault.Vault
	max    int64
	cached bool

	mu    sync.Mutex
	gen   uint64           // bumped by every invalidation
	cache map[string]entry // folder ("" is the root) -> its CLAUDE.md
}

// entry is a folder's CLAUDE.md as last read; ok is false when it has
// none.
type entry struct {
	content string
	ok      bool
	// rel and via are where the file was read (vault.Path's Rel and
	// Via): a CLAUDE.md that is a symbolic link shows its target's text,
	// so a session sees it only when it may see both ends.
	rel, via string
}

// visibleTo reports whether scope lets a session see e.
func (e entry) visibleTo(scope *access.Scope) bool {
	return scope.Visible(e.rel) && (e.via == "" || scope.Visible(e.via))
}

// New returns the guidance files of v.
func New(v *vault.Vault, opts Options) *Files {
	f := &Files{v: v, max: opts.MaxBytes, cached: opts.Changes != nil, cache: map[string]entry{}}
	if f.max <= 0 {
		f.max = DefaultMaxBytes
	}
	opts.Changes.Listen(f.Changed)
	return f
}

// Root returns the vault's root CLAUDE.md, or "" when it has none (or only
// whitespace), or when ctx's access scope hides it (at either end, when it
// is a symbolic link).
func (f *Files) Root(ctx context.Context) string {
	e := f.claudeIn("")
	if !e.ok || !e.visibleTo(access.From(ctx)) {
		return ""
	}
	return e.content
}

// Along returns the CLAUDE.md files in the folders from the vault root down
// to dir, outermost first. The root's own is left out: it is the
// instructions every session already has. dir is checked against the vault
// boundary; it may name a folder that does not exist (yet), whose existing
// ancestors are still searched, or a file, which stands for its folder.
// Under ctx's access scope, dir must be one the client may see, and
// CLAUDE.md files it hides are left out (the cache is shared by all).
func (f *Files) Along(ctx context.Context, dir string) ([]File, error) {
	p, err := f.v.ResolveFor(ctx, dir)
	if err != nil {
		return nil, err
	}
	scope := access.From(ctx)
	rel := p.Rel
	if rel != "" {
		if _, fi, err := f.v.Stat(context.Background(), rel); err == nil && !fi.IsDir() {
			rel = parent(rel)
		}
	}
	var out []File
	if rel == "" {
		return out, nil
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		folder := strings.Join(parts[:i+1], "/")
		if !scope.Visible(path.Join(folder, FileName)) {
			continue
		}
		if e := f.claudeIn(folder); e.ok && e.visibleTo(scope) {
			out = append(out, File{Dir: folder, Content: e.content})
		}
	}
	return out, nil
}

// claudeIn returns the CLAUDE.md of one folder, from the cache when it
// holds it.
func (f *Files) claudeIn(folder string) entry {
	f.mu.Lock()
	e, hit := f.cache[folder]
	gen := f.gen
	f.mu.Unlock()
	if hit {
		return e
	}
	e = f.read(path.Join(folder, FileName))
	if !f.cached {
		return e
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// A change announced while we read may have made e stale: keep it
	// out of the cache and let the next call read again.
	if f.gen == gen {
		if len(f.cache) >= maxCached {
			clear(f.cache)
		}
		f.cache[folder] = e
	}
	return e
}

// read reads one CLAUDE.md through the vault. Any failure — none there, a
// folder of that name, a symlink leading out — counts as none.
func (f *Files) read(rel string) entry {
	file, err := f.v.ReadFile(context.Background(), rel, f.max) // cached for every session: Along filters
	if err != nil || len(bytes.TrimSpace(file.Data)) == 0 {
		return entry{}
	}
	content := string(file.Data)
	if file.Truncated {
		content = strings.ToValidUTF8(content, "") + truncated
	}
	return entry{content: content, ok: true, rel: file.Path.Rel, via: file.Path.Via}
}

// Changed drops the cached CLAUDE.md of every folder the batch's paths
// may have changed: a path that is a CLAUDE.md, the folder itself, or one
// of its ancestors (a folder moved, deleted or replaced). It is the
// listener registered with Options.Changes.
func (f *Files) Changed(b changes.Batch) {
	paths := b.Paths
	if len(paths) == 0 {
		return
	}
	touched := make(map[string]bool, len(paths))
	claudes := map[string]bool{}
	for _, p := range paths {
		p = strings.Trim(p, "/")
		touched[p] = true
		if strings.EqualFold(path.Base(p), FileName) {
			claudes[parent(p)] = true
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gen++
	if touched[""] {
		clear(f.cache)
		return
	}
	for folder := range f.cache {
		if claudes[folder] || affected(folder, touched) {
			delete(f.cache, folder)
		}
	}
}

// affected reports whether folder or one of its ancestors (not the root)
// was touched.
func affected(folder string, touched map[string]bool) bool {
	for folder != "" {
		if touched[folder] {
			return true
		}
		folder = parent(folder)
	}
	return false
}

// parent is the folder of a vault-relative path, "" for the root.
func parent(rel string) string {
	dir := path.Dir(rel)
	if dir == "." || dir == "/" {
		return ""
	}
	return dir
}

// Folder returns the vault folder dir as an fs.FS whose files are read
// through the vault boundary (symlinks leading out and hidden folders are
// refused, files are capped at MaxBytes). It serves the vault's own guide
// files. Nothing is cached: guides are read when asked for.
func (f *Files) Folder(dir string) fs.FS { return folderFS{f: f, dir: strings.Trim(dir, "/")} }

type folderFS struct {
	f   *Files
	dir string
}

// Open reads the whole file at once; guide files are small.
func (fsys folderFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	file, err := fsys.f.v.ReadFile(context.Background(), path.Join(fsys.dir, name), fsys.f.max) // the vault's own guides, for the server
	if err != nil {
		if errors.Is(err, vault.ErrNotFound) {
			err = fs.ErrNotExist
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &memFile{name: path.Base(name), size: int64(len(file.Data)), mod: file.ModTime, r: bytes.NewReader(file.Data)}, nil
}

// memFile is a file read into memory.
type memFile struct {
	name string
	size int64
	mod  time.Time
	r    *bytes.Reader
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m, nil }
func (m *memFile) Read(b []byte) (int, error) { return m.r.Read(b) }
func (m *memFile) Close() error               { return nil }

func (m *memFile) Name() string       { return m.name }
func (m *memFile) Size() int64        { return m.size }
func (m *memFile) Mode() fs.FileMode  { return 0o444 }
func (m *memFile) ModTime() time.Time { return m.mod }
func (m *memFile) IsDir() bool        { return false }
func (m *memFile) Sys() any           { return nil }

var (
	_ fs.FS       = folderFS{}
	_ fs.FileInfo = (*memFile)(nil)
	_ io.Reader   = (*memFile)(nil)
)
