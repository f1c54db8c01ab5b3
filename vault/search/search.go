// Package search finds things in a vault: files by glob (search_files),
// lines by text or regular expression (grep), files by name, date and
// size (find_files), and the counts get_vault_info reports. Text is
// searched from memory when a Texts source (the live index) holds it, and
// otherwise by a parallel scan of the disk through a content cache
// checked against each file's size and modification time. Like every
// scan of the vault it leaves out hidden and skipped folders and never
// follows a symbolic link, and every answer is narrowed to the access
// scope of the request's context (package access).
package search

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

// Texts is a source of file contents already in memory: the live index.
type Texts interface {
	// Texts calls fn for every file it knows under prefix (a
	// vault-relative folder, "" for the whole vault; a file is under
	// prefix when its path is prefix or starts with prefix + "/"), in any
	// order, until fn returns false. content is the file's bytes when the
	// source holds them and nil when it does not (attachments, files it
	// does not parse): grep then reads that file from disk. Files in
	// hidden or skipped folders must not be reported.
	//
	// ok=false means the source is not ready (still building): nothing
	// was reported, and the engine scans the disk instead.
	//
	// content is shared, not copied: neither side may modify it, and a
	// file that changes must be reported with a new slice, since the
	// engine caches data derived from a text by the identity of its
	// slice. fn may be slow; Texts should not hold a lock that writers
	// wait on while it runs if it can avoid it.
	Texts(prefix string, fn func(rel string, content []byte) bool) (ok bool)
}

// A Texts source that holds files it found as symbolic links says where
// they lead by being an access.Links too (the index is): what it reports
// is then judged by the request's scope bound through it, so a link is
// shown only when its target may be seen as well. A source that reports
// links without being one would show a hidden note under a visible name.

// Files is an optional interface of a Texts source that knows every
// file, not only those whose text it holds (an index that keeps notes
// also tracks attachments and other files). With it, search_files runs
// from memory, and grep reads from disk only the files Texts did not
// report (non-notes), skipping known binary types without opening them.
// Without it, search_files walks the disk and grep from memory searches
// only what Texts reports.
type Files interface {
	// Files calls fn with the path of every file under prefix (as for
	// Texts), in any order, until fn returns false; ok=false means not
	// ready.
	Files(prefix string, fn func(rel string) bool) (ok bool)
}

// Generational is an optional interface of a Texts source that is also a
// Files source (the index): its generation tells when what it lists may
// have changed. With it, grep works out once per generation, not on every
// call, which files it must read from disk because Texts does not hold
// them.
type Generational interface {
	// Generation returns a number that changes whenever the set of files
	// Files reports, or the set Texts reports, may have changed.
	Generation() uint64
}

// Options configure an Engine. The zero value searches the disk with the
// default cache.
type Options struct {
	// Texts, when set, serves file contents from memory.
	Texts Texts
	// CacheBytes caps the contents of files read from disk kept between
	// searches. 0 means DefaultCacheBytes; negative disables the cache.
	CacheBytes int64
	// Workers is how many files are searched at once; 0 means GOMAXPROCS.
	Workers int
	// Logger receives panics recovered in search workers; nil means
	// slog.Default().
	Logger *slog.Logger
}

// DefaultCacheBytes is the default cap of the content cache: a
// 10,000-note vault of 2 KB notes takes 20 MB.
const DefaultCacheBytes = 64 << 20

// Engine runs searches over one vault. It is safe for concurrent use.
type Engine struct {
	v       *vault.Vault
	texts   Texts
	files   Files        // texts as Files, when it is one
	links   access.Links // texts as Links, when it is one
	workers int
	content *contentCache
	log     *slog.Logger
	others  otherFiles
}

// otherFiles remembers, for one generation of a Generational source, the
// files Files lists whose text Texts does not hold (attachments and other
// files that are not notes), less the known binary ones: grep reads them
// from disk. At 100,000 notes working this out costs more than searching
// every text, so it is done once per change of the vault, not per grep.
type otherFiles struct {
	mu    sync.Mutex
	valid bool
	gen   uint64
	rels  []string
}

// New returns an engine over v.
func New(v *vault.Vault, opts Options) *Engine {
	limit := opts.CacheBytes
	switch {
	case limit == 0:
		limit = DefaultCacheBytes
	case limit < 0:
		limit = 0
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	files, _ := opts.Texts.(Files)
	links, _ := opts.Texts.(access.Links)
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &Engine{
		log:     logger,
		v:       v,
		texts:   opts.Texts,
		files:   files,
		links:   links,
		workers: workers,
		content: newContentCache(limit),
	}
}

// folder resolves a client path that must name an existing folder
// ("" = the vault root) that ctx's access scope lets the client search.
func (e *Engine) folder(ctx context.Context, given string) (vault.Path, error) {
	p, fi, err := e.stat(ctx, given)
	if err != nil {
		return vault.Path{}, err
	}
	if !fi.IsDir() {
		return vault.Path{}, &vault.Error{Kind: vault.ErrNotDir, Path: given,
			Msg: "Not a directory: " + given + " (give a folder to search in, or \"\" for the whole vault)"}
	}
	return p, nil
}

// stat resolves a client path that must exist, under ctx's access scope.
func (e *Engine) stat(ctx context.Context, given string) (vault.Path, fs.FileInfo, error) {
	p, err := e.v.ResolveFor(ctx, given)
	if err != nil {
		return vault.Path{}, nil, err
	}
	fi, err := os.Stat(p.Abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return vault.Path{}, nil, &vault.Error{Kind: vault.ErrNotFound, Path: given, Msg: "Path not found: " + given}
		}
		return vault.Path{}, nil, &vault.Error{Kind: vault.ErrInvalidInput, Path: given, Msg: "Cannot read " + given}
	}
	return p, fi, nil
}

// inSkipped reports whether rel lies in a folder scans leave out, which
// a client may still search by naming it; the index does not hold it.
func (e *Engine) inSkipped(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if part != "" && e.v.Skipped(part) {
			return true
		}
	}
	return false
}

// memoryFiles lists the files under dir from the Files source that ctx's
// access scope lets the client see, until fn returns false, or reports
// false when there is no source or it is not ready.
func (e *Engine) memoryFiles(ctx context.Context, dir vault.Path, fn func(rel string) bool) bool {
	if e.files == nil || e.inSkipped(dir.Rel) {
		return false
	}
	scope := e.scope(ctx)
	return e.files.Files(dir.Rel, func(rel string) bool {
		return !scope.Visible(rel) || fn(rel)
	})
}

// scope is the access scope ctx carries, bound through the links of the
// Texts source: what comes from memory is judged with it.
func (e *Engine) scope(ctx context.Context) *access.Scope {
	return access.From(ctx).Through(e.links)
}

// otherFiles returns the files under dir (and, when they come from the
// cache, others too: the caller keeps those under dir) that Files lists
// and Texts does not hold, less the known binary ones. ok is false when
// the source is not ready. e.files must be set.
func (e *Engine) otherFiles(dir string) (rels []string, ok bool) {
	gs, cached := e.texts.(Generational)
	if !cached {
		return e.listOtherFiles(dir)
	}
	c := &e.others
	c.mu.Lock()
	defer c.mu.Unlock()
	// Read before listing: a change made while listing bumps it again, and
	// the next search lists afresh.
	gen := gs.Generation()
	if c.valid && c.gen == gen {
		return c.rels, true
	}
	if rels, ok = e.listOtherFiles(""); !ok {
		return nil, false
	}
	c.valid, c.gen, c.rels = true, gen, rels
	return rels, true
}

// listOtherFiles lists the files under dir that Files reports and Texts
// does not, less the known binary ones.
func (e *Engine) listOtherFiles(dir string) ([]string, bool) {
	held := map[string]struct{}{}
	if !e.texts.Texts(dir, func(rel string, _ []byte) bool {
		held[rel] = struct{}{}
		return true
	}) {
		return nil, false
	}
	var rels []string
	ok := e.files.Files(dir, func(rel string) bool {
		if _, ok := held[rel]; !ok && !knownBinary(rel) {
			rels = append(rels, rel)
		}
		return true
	})
	return rels, ok
}

// under reports whether rel is dir or lies below it ("" is the root).
func under(rel, dir string) bool {
	return dir == "" || rel == dir || strings.HasPrefix(rel, dir+"/")
}
