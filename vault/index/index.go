// Package index is the live in-memory model of a vault's notes: each
// note's links, tags and text, the link graph resolved the way Obsidian
// resolves it, and tag counts. It is built in the background at start,
// kept fresh by the server's own writes (synchronously, so a write is seen
// by the next query), by pulls and by file-system events, and answers
// backlink, broken-link and tag queries in microseconds instead of
// rescanning the vault.
package index

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/canvas"
	"vaultmcp/vault/changes"
	"vaultmcp/vault/markdown"
)

// Index is the live model of one vault. Its methods are safe for
// concurrent use; queries made before the first build finishes wait for
// it.
type Index struct {
	v       *vault.Vault
	log     *slog.Logger
	maxNote int64 // larger notes are not read; see SetMaxNoteBytes

	ready     chan struct{}
	readyOnce sync.Once

	// refreshMu serialises refreshes from end to end (read the disk,
	// update the maps), so the refresh that reads a file last installs it
	// last: the watcher's late copy never overwrites a write's own. It
	// also guards built and pending: paths reported before the first
	// build is done are replayed when it is, since the build's walk may
	// already have passed them; and announced, what the batch being
	// taken in says its change wrote (see Changed).
	refreshMu sync.Mutex
	built     bool
	pending   []string
	announced map[string]changes.File

	// ownMu guards own: the texts of notes the index itself wrote
	// (FollowRename), kept for the refresh that reports them back.
	ownMu sync.Mutex
	own   map[string]written
	// ownCanvases are the canvases a rename's relinking wrote, parsed
	// beside the commit (see keepCanvases); guarded by ownMu.
	ownCanvases map[string]writtenCanvas

	mu    sync.RWMutex
	notes map[string]*note // Markdown notes by rel path
	// canvases holds the vault's canvases, nil while it has none (see
	// canvasNote): their file nodes are links too.
	canvases map[string]*canvasNote
	files    map[string]struct{} // every indexed file by rel path
	// below counts, for each folder, the files of files at any depth
	// below it (a folder with none is absent; the root is not counted).
	// A refresh of a path that has nothing below it (a renamed note's
	// old and new paths) then skips a scan of every file in the vault.
	below     map[string]int
	names     names                 // for link resolution
	linkers   map[string]*bucket    // linkKey -> notes with links in that bucket
	backlinks map[string]*sourceSet // target rel -> source rel -> link count
	tags      map[string]*tagStat   // key(tag) -> counts
	broken    int                   // notes with at least one broken link
	badFM     int                   // notes whose frontmatter could not be read
	concepts  conceptGraph          // the SKOS concept graph (concepts.go)
	gen       uint64                // bumped by every change, for caches
	seq       atomic.Uint64         // numbers the notes read, for NoteMeta.Seq

	texts atomic.Pointer[textList] // what Texts walks, as of one gen

	// links maps each indexed file that is a symbolic link to the
	// vault-relative path of its target (see LinkTarget). It is read
	// without a lock, by scopes checking paths while queries hold mu, so
	// it is replaced whole on each change (links are few); linksMu
	// serialises the changes.
	links   atomic.Pointer[map[string]string]
	linksMu sync.Mutex

	cacheMu     sync.Mutex
	brokenGen   uint64
	brokenCache []BrokenLinks

	// walked, when set (by tests), runs in Build once the walk is done,
	// before the notes read meanwhile are indexed.
	walked func()
}

// note is one Markdown note as the index holds it. rel and content never
// change once the note is in the index (a note read again is a new
// *note): Texts reads them without the lock.
type note struct {
	rel     string
	target  string // for a symbolic link, the file it leads to; else ""
	content []byte // nil for a note too large to read
	size    int64
	modTime time.Time
	doc     document
	out     []string // resolved target of each doc.links[i]; "" when broken
	seq     uint64   // a new number each time the note is read
	// tooLarge: the note is bigger than the index reads; it is known by
	// name (links to it resolve) but its own links and tags are not.
	tooLarge bool
	// badFrontmatter: the note opens with a frontmatter block that could
	// not be read (not YAML, or not a mapping). Why is not kept: a failed
	// lookup parses the note again to say (UnreadableNamed).
	badFrontmatter bool
}

// DefaultMaxNoteBytes is the largest note the index reads and parses. A
// larger one (a log dump, a multi-gigabyte file someone named .md) is
// indexed by name only, so it cannot exhaust memory at start.
const DefaultMaxNoteBytes = 10 << 20

// tagStat counts one tag (case-folded) over the vault.
type tagStat struct {
	count     int            // occurrences
	notes     int            // notes carrying it
	spellings map[string]int // spelling -> occurrences
}

// New returns an empty index over v. Call Start to build it.
func New(v *vault.Vault, logger *slog.Logger) *Index {
	if logger == nil {
		logger = slog.Default()
	}
	return &Index{
		v:         v,
		log:       logger,
		maxNote:   DefaultMaxNoteBytes,
		ready:     make(chan struct{}),
		notes:     map[string]*note{},
		files:     map[string]struct{}{},
		below:     map[string]int{},
		names:     newNames(),
		linkers:   map[string]*bucket{},
		backlinks: map[string]*sourceSet{},
		tags:      map[string]*tagStat{},
	}
}

// SetMaxNoteBytes sets the largest note the index reads (n <= 0 means
// DefaultMaxNoteBytes). Call it before Start. Larger notes are indexed by
// name only: links to them resolve, their own links and tags are left
// out, and grep reads them from disk.
func (ix *Index) SetMaxNoteBytes(n int64) {
	if n <= 0 {
		n = DefaultMaxNoteBytes
	}
	ix.maxNote = n
}

// Build reads and parses the whole vault, using every core, and marks the
// index ready. Start runs it in the background.
func (ix *Index) Build(ctx context.Context) error {
	defer ix.readyOnce.Do(func() { close(ix.ready) })
	defer ix.replayPending() // before queries are let in
	start := time.Now()
	root, err := ix.v.Resolve("")
	if err != nil {
		return err
	}
	// Notes are read and parsed while the walk goes on, handed to the
	// workers a batch at a time: the walk of a large vault takes as long
	// as parsing a tenth of it.
	workers := runtime.GOMAXPROCS(0)
	found := make([]foundNotes, workers)
	batches := make(chan []string, 4*workers)
	var wg sync.WaitGroup
	for w := range found {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix.loadBatches(root.Abs, batches, &found[w])
		}()
	}
	var otherPaths []string
	var batch []string
	// Links are few: their notes are read after the walk, at their
	// targets, and their targets installed before any note is.
	links := map[string]vault.Path{}
	notes := 0
	err = ix.v.Walk(root, func(rel string, d fs.DirEntry) error {
		target, ok := ix.fileEntry(rel, d)
		if !ok {
			return nil
		}
		if target.Via != "" {
			links[rel] = target
		}
		if !isNote(rel) {
			otherPaths = append(otherPaths, rel)
			return ctx.Err()
		}
		notes++
		if target.Via != "" {
			return ctx.Err()
		}
		if batch = append(batch, rel); len(batch) == loadBatch {
			batches <- batch
			batch = make([]string, 0, loadBatch)
		}
		return ctx.Err()
	})
	if len(batch) > 0 && err == nil {
		batches <- batch
	}
	close(batches)
	if err != nil {
		wg.Wait()
		return err
	}
	if ix.walked != nil {
		ix.walked()
	}
	// The vault-wide maps are made while the workers finish: making them
	// is worth a few milliseconds of zeroing.
	var sized sync.WaitGroup
	sized.Add(1)
	go func() {
		defer sized.Done()
		ix.mu.Lock()
		defer ix.mu.Unlock()
		ix.presize(notes, len(otherPaths))
	}()
	wg.Wait()
	loaded := make([]*note, 0, notes)
	keys := make([]nameKeysOf, 0, notes)
	for _, f := range found {
		loaded = append(loaded, f.notes...)
		keys = append(keys, f.keys...)
	}
	for rel, target := range links {
		if !isNote(rel) {
			continue
		}
		if n := ix.loadAt(rel, target.Abs, nil); n != nil {
			n.target = target.Rel
			loaded = append(loaded, n)
			keys = append(keys, nameKeys(rel))
		}
	}
	ix.installLinks(links)
	canvases := ix.loadCanvases(root.Abs, otherPaths)
	sized.Wait()

	ix.mu.Lock()
	defer ix.mu.Unlock()
	// The file and note tables are not needed until the links are folded
	// in: fill them meanwhile.
	var tables sync.WaitGroup
	tables.Add(1)
	go func() {
		defer tables.Done()
		for _, rel := range otherPaths {
			ix.files[rel] = struct{}{}
			ix.countBelow(rel, 1)
		}
		for _, n := range loaded {
			ix.files[n.rel] = struct{}{}
			ix.countBelow(n.rel, 1)
			ix.notes[n.rel] = n
		}
	}()
	for _, rel := range otherPaths {
		ix.names.add(rel)
	}
	for i, n := range loaded {
		ix.names.addKeyed(n.rel, keys[i])
	}
	// Links resolve only once every name is known.
	ix.foldIn(loaded)
	tables.Wait()
	for _, cn := range canvases {
		ix.putCanvas(cn.rel, cn)
	}
	var tooLarge []string
	for _, n := range loaded {
		if n.tooLarge {
			tooLarge = append(tooLarge, n.rel)
		}
	}
	if len(tooLarge) > 0 {
		slices.Sort(tooLarge)
		ix.log.Warn("notes too large to index: their links and tags are left out (grep still reads them)",
			"count", len(tooLarge), "limit_bytes", ix.maxNote, "first", tooLarge[:min(len(tooLarge), 10)])
	}
	ix.concepts.settle(&ix.names)
	ix.log.Info("index built", "notes", len(ix.notes), "files", len(ix.files), "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// presize makes the vault-wide maps, while still empty, big enough for a
// build of notes notes and others other files: filled one entry at a time
// they would grow and rehash a dozen times under the lock. Caller holds
// mu.
func (ix *Index) presize(notes, others int) {
	if len(ix.files) > 0 {
		return
	}
	ix.notes = make(map[string]*note, notes)
	ix.files = make(map[string]struct{}, notes+others)
	ix.below = map[string]int{}
	ix.names.byPath = make(map[string]string, notes+others)
	ix.names.byBase = make(map[string][]string, notes+others)
	// Most notes are linked to, and most link to names of notes.
	ix.backlinks = make(map[string]*sourceSet, notes)
	ix.linkers = make(map[string]*bucket, notes)
}

// loadBatch is how many paths the walk hands a worker at a time.
const loadBatch = 64

// foundNotes are the notes one worker of a build read, with their name
// keys.
type foundNotes struct {
	notes []*note
	keys  []nameKeysOf
}

// loadBatches reads and parses the notes of each batch of paths below
// root into found, until batches is closed. A note that cannot be read is
// left out; a panic while reading one is logged and leaves it out.
func (ix *Index) loadBatches(root string, batches <-chan []string, found *foundNotes) {
	ld := loader{keys: make(keyCache, 1024)}
	load := func(rel string) {
		defer func() {
			// Not recoverLogged: its message would be made for every note.
			if p := recover(); p != nil {
				logPanic(ix.log, "index build of "+rel, p)
			}
		}()
		// Walk vetted these paths: skip Resolve's per-component checks,
		// a dozen system calls per file at start.
		if n := ix.loadAt(rel, ld.pathOf(root, rel), &ld); n != nil {
			found.notes = append(found.notes, n)
			found.keys = append(found.keys, nameKeys(rel))
		}
	}
	for batch := range batches {
		for _, rel := range batch {
			load(rel)
		}
	}
}

// Start builds the index in the background, so a client's initialize is
// never kept waiting for it.
func (ix *Index) Start(ctx context.Context) {
	go func() {
		// A panic ends the build, not the server: Build's deferred calls
		// still mark the index ready, with what it holds.
		defer recoverLogged(ix.log, "index build")
		if err := ix.Build(ctx); err != nil && !errors.Is(err, context.Canceled) {
			ix.log.Error("index build failed", "err", err)
		}
	}()
}

// recoverLogged recovers a panic in a background goroutine and logs it
// with its stack, so that one bad note cannot end the server. Use it as
// `defer recoverLogged(log, what)`.
func recoverLogged(log *slog.Logger, what string) {
	if p := recover(); p != nil {
		logPanic(log, what, p)
	}
}

// logPanic logs the panic p, recovered in what, with its stack.
func logPanic(log *slog.Logger, what string, p any) {
	log.Error("recovered from a panic; the server goes on", "in", what, "panic", p, "stack", string(debug.Stack()))
}

// Wait blocks until the first build is done or ctx ends.
func (ix *Index) Wait(ctx context.Context) error {
	select {
	case <-ix.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Ready reports whether the first build is done.
func (ix *Index) Ready() bool {
	select {
	case <-ix.ready:
		return true
	default:
		return false
	}
}

// fileEntry reports whether a walked entry is indexed as a file: a
// regular file, or a symbolic link to a regular file inside the vault
// (not to a folder or a FIFO, not leading out, not into a folder scans
// leave out: see vault.FollowLink). For a link, target is where it leads
// (target.Via is rel); for a regular file it is the zero Path. Only
// links cost a look at the disk: the walk's type bits tell the rest.
func (ix *Index) fileEntry(rel string, d fs.DirEntry) (target vault.Path, ok bool) {
	if d.IsDir() || vault.IsSpecial(d.Type()) {
		return vault.Path{}, false
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return vault.Path{}, true
	}
	p, fi, ok := ix.v.FollowLink(rel)
	if !ok || !fi.Mode().IsRegular() {
		return vault.Path{}, false
	}
	return p, true
}

// LinkTarget returns the vault-relative path of the file the indexed
// symbolic link rel leads to; ok is false when rel is not one. It makes
// the index an access.Links: every answer the index gives, and every
// answer made from its files (Texts, Files, EachNote), judges a path with
// the request's scope bound through it (Scope), so a link shows only
// where its target may be seen too.
func (ix *Index) LinkTarget(rel string) (string, bool) {
	m := ix.links.Load()
	if m == nil {
		return "", false
	}
	t, ok := (*m)[rel]
	return t, ok
}

// Scope returns the access scope ctx carries, bound through the index's
// symbolic links (access.Scope.Through): what filters anything listed
// from the index must use it, not access.From alone.
func (ix *Index) Scope(ctx context.Context) *access.Scope {
	return access.From(ctx).Through(ix)
}

// installLinks sets the targets of a build's links.
func (ix *Index) installLinks(links map[string]vault.Path) {
	if len(links) == 0 {
		return
	}
	ix.linksMu.Lock()
	defer ix.linksMu.Unlock()
	m := make(map[string]string, len(links))
	for rel, p := range links {
		m[rel] = p.Rel
	}
	ix.links.Store(&m)
}

// setLink records that rel is a link to target ("": that it is no link).
// Call it before a link's note goes in, and after a note that was a link
// went out or was replaced, so that no answer sees the note judged
// without its target.
func (ix *Index) setLink(rel, target string) {
	if old, ok := ix.LinkTarget(rel); ok == (target != "") && old == target {
		return // the common case: no link before, none now
	}
	ix.linksMu.Lock()
	defer ix.linksMu.Unlock()
	var m map[string]string
	if old := ix.links.Load(); old != nil {
		m = maps.Clone(*old)
	}
	if target == "" {
		delete(m, rel)
	} else {
		if m == nil {
			m = map[string]string{}
		}
		m[rel] = target
	}
	if len(m) == 0 {
		ix.links.Store(nil)
		return
	}
	ix.links.Store(&m)
}

func isNote(rel string) bool {
	return strings.EqualFold(path.Ext(rel), ".md")
}

// loader is what a build's worker reuses from one note to the next.
type loader struct {
	texts slab
	md    markdown.Note // the parser's result, copied out of (document)
	keys  keyCache      // made by the worker
	path  []byte        // the note's absolute path and a NUL byte
}

// pathOf sets ld.path to the absolute path of the note rel below root,
// followed by a NUL byte, and returns the path without it, as a string
// that is only valid until the next call.
func (ld *loader) pathOf(root, rel string) string {
	ld.path = append(append(append(ld.path[:0], root...), filepath.Separator), filepath.FromSlash(rel)...)
	ld.path = append(ld.path, 0)
	return unsafe.String(&ld.path[0], len(ld.path)-1)
}

// loadAt reads and parses the note rel found at abs, with ld's buffers
// (nil: buffers of its own). A FIFO or device is never opened; a note
// over the size limit is not read (tooLarge).
func (ix *Index) loadAt(rel, abs string, ld *loader) (n *note) {
	var texts *slab
	var md *markdown.Note
	var keys keyCache
	var cpath []byte
	if ld != nil {
		texts, md, keys = &ld.texts, &ld.md, ld.keys
		// The C form of abs, when ld holds it (pathOf made abs).
		if len(ld.path) == len(abs)+1 && unsafe.String(&ld.path[0], len(abs)) == abs {
			cpath = ld.path
		}
	}
	content, size, modTime, err := readNote(abs, cpath, ix.maxNote, texts)
	switch {
	case err != nil:
		return nil
	case size > ix.maxNote:
		return &note{rel: rel, size: size, modTime: modTime, tooLarge: true, seq: ix.seq.Add(1)}
	}
	doc, bad := ix.parseWith(rel, content, md, keys)
	return &note{rel: rel, content: content, size: size, modTime: modTime, doc: doc, badFrontmatter: bad, seq: ix.seq.Add(1)}
}

// parse parses one note, turning a parser panic (a bug the note's text
// triggers) into a logged error and a note without links, tags or concept.
func (ix *Index) parse(rel string, content []byte) (d document, badFrontmatter bool) {
	return ix.parseWith(rel, content, nil, nil)
}

// parseWith is parse reusing md and keys (see document's parse).
func (ix *Index) parseWith(rel string, content []byte, md *markdown.Note, keys keyCache) (d document, badFrontmatter bool) {
	defer func() {
		if p := recover(); p != nil {
			ix.log.Error("parsing a note panicked; it is indexed without links or tags", "path", rel, "panic", p, "stack", string(debug.Stack()))
			d, badFrontmatter = document{}, false
		}
	}()
	return parse(rel, content, md, keys)
}

// slab hands out the buffers a build reads notes into, cut from large
// chunks: the notes' texts are most of the index's heap, and allocated one
// by one they share the collector's size-class spans with the parse's
// short-lived garbage, leaving those spans part empty for as long as the
// notes live (a fifth of the heap again, at 10,000 notes). A chunk lives as
// long as any note read into it: a note re-read later gets a buffer of its
// own, and the chunk's copy is freed with the chunk's last note. The nil
// *slab allocates each buffer on its own.
//
// A new chunk is usually fresh memory, which the kernel maps a page at a
// time as the reads first write it; prefault maps it in one call instead.
type slab struct {
	free []byte
}

// slabChunk is the size of a chunk; a note of more than a quarter of it
// gets a buffer of its own.
const slabChunk = 256 << 10

func (s *slab) alloc(n int) []byte {
	if s == nil || n > slabChunk/4 {
		return make([]byte, n)
	}
	if len(s.free) < n {
		s.free = make([]byte, slabChunk)
		prefault(s.free)
	}
	b := s.free[:n:n]
	s.free = s.free[n:]
	return b
}

func readFull(f *os.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Changed brings the index up to date with a batch of the change feed:
// its paths (files or folders, existing or gone), taking the content of a
// file the server wrote from the batch rather than from disk while the
// file is still the one written. It is the feed's first listener: the
// vault's changes reach it under the write lock, so the next query sees
// them; the watcher's and gitsync's after changes made outside.
func (ix *Index) Changed(b changes.Batch) {
	ix.refreshMu.Lock()
	defer ix.refreshMu.Unlock()
	if !ix.built {
		ix.pending = append(ix.pending, b.Paths...)
		return
	}
	ix.announced = b.Written
	defer func() { ix.announced = nil }()
	for _, rel := range b.Paths {
		ix.refreshOne(rel)
	}
}

// Refresh brings the index up to date with the given vault-relative paths
// as they are on disk: Changed for a batch that wrote nothing, for a
// caller that knows only paths (tests, mostly; the server's sources all
// publish to the feed).
func (ix *Index) Refresh(paths []string) { ix.Changed(changes.Batch{Paths: paths}) }

// replayPending marks the first build done and applies what was reported
// while it ran.
func (ix *Index) replayPending() {
	ix.refreshMu.Lock()
	defer ix.refreshMu.Unlock()
	ix.built = true
	for _, rel := range ix.pending {
		ix.refreshOne(rel)
	}
	ix.pending = nil
}

func (ix *Index) refreshOne(rel string) {
	if abs, fi, ok := ix.writtenPath(rel); ok {
		ix.refreshFileAt(rel, abs, "", fi) // a note the index just relinked
		return
	}
	// ResolveEntry: a symbolic link is refreshed as itself, not as its
	// target.
	p, err := ix.v.ResolveEntry(rel)
	if err != nil {
		ix.forgetUnder(rel)
		return
	}
	// Build's walk leaves out .obsidian, .trash and the vault's temporary
	// files; so must a refresh, whoever reports the path (a write into
	// .trash, a pull of .obsidian settings).
	if ix.skipped(p.Rel) {
		return
	}
	fi, err := os.Lstat(p.Abs)
	var target vault.Path // where a link leads
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		var ok bool
		if target, fi, ok = ix.v.FollowLink(p.Rel); !ok {
			// Leading out, nowhere, or into .git: as good as gone.
			err = fs.ErrNotExist
		}
	}
	switch {
	case err != nil, vault.IsSpecial(fi.Mode()):
		ix.forgetUnder(p.Rel)
		if p.Rel != rel {
			// A name gone from disk resolves to its NFC spelling (the
			// form new names take), but the index holds it as it was
			// stored: a note saved decomposed, as macOS writes names,
			// and then deleted or renamed away is reported under that
			// stored name.
			ix.forgetUnder(rel)
		}
	case fi.IsDir() && target.Via != "":
		// A link to a folder is no file, and nothing is indexed below
		// it: a walk never follows one.
		ix.forgetUnder(p.Rel)
	case fi.IsDir():
		_ = ix.v.Walk(p, func(child string, d fs.DirEntry) error {
			if target, ok := ix.fileEntry(child, d); ok {
				ix.refreshFileAt(child, target.Abs, target.Rel, nil)
			}
			return nil
		})
		ix.forgetMissingUnder(p.Rel)
	default:
		ix.mu.RLock()
		_, known := ix.files[p.Rel]
		ix.mu.RUnlock()
		if !known {
			// A new file may stand where a folder of that name was.
			ix.forgetBelow(p.Rel)
		}
		if target.Via != "" {
			ix.refreshFileAt(p.Rel, target.Abs, target.Rel, nil)
		} else {
			ix.refreshFileAt(p.Rel, p.Abs, "", nil)
		}
	}
}

// forgetBelow drops everything below the path rel, which is now a file.
func (ix *Index) forgetBelow(rel string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.below[rel] == 0 {
		return // the common case, a new file: no scan of the vault
	}
	prefix := rel + "/"
	for f := range ix.files {
		if strings.HasPrefix(f, prefix) {
			ix.removeFile(f)
		}
	}
}

// skipped reports whether any component of rel is one that scans leave
// out.
func (ix *Index) skipped(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if ix.v.Skipped(part) {
			return true
		}
	}
	return false
}

// refreshFileAt re-reads one existing file, found at abs when the caller
// has resolved it ("": resolve rel here). target is, when rel is a
// symbolic link, the vault-relative path of the file it leads to (abs is
// then that file's), else "". fi is the file's stat data when the caller
// has just taken them and found the file to be the one the change wrote
// (nil when not), so they are not asked of the file system again.
func (ix *Index) refreshFileAt(rel, abs, target string, fi fs.FileInfo) {
	// A link's target is known before its note is in, and a link's
	// target forgotten only once its note is out or replaced: no answer
	// may judge the link's note by the link's path alone.
	if target != "" {
		ix.setLink(rel, target)
	} else {
		defer ix.setLink(rel, "")
	}
	if canvas.IsCanvas(rel) {
		ix.refreshCanvas(rel, abs)
		return
	}
	if !isNote(rel) {
		ix.mu.Lock()
		ix.putName(rel)
		ix.mu.Unlock()
		return
	}
	n, same := ix.reload(rel, abs, target, fi)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if n == nil {
		ix.removeFile(rel)
		return
	}
	if same {
		return
	}
	if old := ix.notes[rel]; n.tooLarge && (old == nil || !old.tooLarge) {
		ix.log.Warn("note too large to index: its links and tags are left out (grep still reads it)", "path", rel, "bytes", n.size, "limit_bytes", ix.maxNote)
	}
	if old, ok := ix.notes[rel]; ok {
		ix.removeContributions(old)
	}
	ix.notes[rel] = n
	ix.putName(rel)
	ix.addContributions(n)
}

// forgetUnder drops rel and, if it was a folder, everything below it.
func (ix *Index) forgetUnder(rel string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if rel != "" && ix.below[rel] == 0 {
		ix.removeFile(rel) // no folder of files: rel alone, if known
		return
	}
	prefix := rel + "/"
	for f := range ix.files {
		if f == rel || strings.HasPrefix(f, prefix) || rel == "" {
			ix.removeFile(f)
		}
	}
}

// forgetMissingUnder drops files below the folder rel that are gone from
// disk (a folder replaced by a pull, say), and a file once indexed at rel
// itself.
func (ix *Index) forgetMissingUnder(rel string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	prefix := rel + "/"
	for f := range ix.files {
		if f == rel { // a file the folder now stands in place of
			ix.removeFile(f)
			continue
		}
		if rel != "" && !strings.HasPrefix(f, prefix) {
			continue
		}
		p, err := ix.v.Resolve(f)
		if err != nil {
			ix.removeFile(f)
			continue
		}
		if _, err := os.Lstat(p.Abs); err != nil {
			ix.removeFile(f)
		}
	}
}

// putName records that rel exists; links in its bucket may now resolve
// differently. Caller holds mu.
func (ix *Index) putName(rel string) {
	if _, ok := ix.files[rel]; ok {
		return
	}
	ix.files[rel] = struct{}{}
	ix.countBelow(rel, 1)
	ix.names.add(rel)
	ix.reresolve(linkKey(rel))
}

// countBelow adds d to the count of files below each folder above rel
// (see Index.below). Caller holds mu.
func (ix *Index) countBelow(rel string, d int) {
	for {
		i := strings.LastIndexByte(rel, '/')
		if i < 0 {
			return
		}
		rel = rel[:i]
		if n := ix.below[rel] + d; n > 0 {
			ix.below[rel] = n
		} else {
			delete(ix.below, rel)
		}
	}
}

// removeFile forgets rel entirely. Caller holds mu.
func (ix *Index) removeFile(rel string) {
	if n, ok := ix.notes[rel]; ok {
		ix.removeContributions(n)
		delete(ix.notes, rel)
	}
	if c, ok := ix.canvases[rel]; ok {
		ix.removeContributions(&c.note)
		delete(ix.canvases, rel)
	}
	if _, ok := ix.files[rel]; !ok {
		return
	}
	delete(ix.files, rel)
	ix.countBelow(rel, -1)
	ix.names.remove(rel)
	ix.reresolve(linkKey(rel))
	ix.setLink(rel, "") // after its note is out: see refreshFileAt
}

// reresolve re-resolves the links of every note with a link in bucket k,
// after a file of that name appeared or vanished. Caller holds mu.
func (ix *Index) reresolve(k string) {
	ix.gen++
	ix.concepts.touchFile(k)
	// Re-linking changes backlinks, never linkers: k's sources stay put.
	for src := range ix.linkers[k].all() {
		n := ix.source(src)
		if n == nil {
			continue
		}
		wasBroken := n.brokenCount() > 0
		for i, l := range n.doc.links {
			if l.bucket != k || l.target == "" {
				continue
			}
			target, _ := ix.names.resolveLink(l, n.rel)
			if target == n.out[i] {
				continue
			}
			ix.unlink(n.rel, n.out[i])
			n.out[i] = target
			ix.link(n.rel, target)
		}
		ix.adjustBroken(wasBroken, n.brokenCount() > 0)
	}
}

// addContributions adds a note's links and tags to the vault-wide maps.
// Caller holds mu.
func (ix *Index) addContributions(n *note) {
	ix.gen++
	if n.out == nil {
		n.resolve(&ix.names)
	}
	for i, l := range n.doc.links {
		ix.link(n.rel, n.out[i])
		if l.target != "" {
			b := ix.linkers[l.bucket]
			if b == nil {
				b = &bucket{key: l.bucket}
				ix.linkers[l.bucket] = b
			}
			b.add(n.rel)
			// One copy of each bucket's key: most links' keys are
			// folded copies of their targets, one per link.
			n.doc.links[i].bucket = b.key
		}
	}
	ix.adjustBroken(false, n.brokenCount() > 0)
	if n.badFrontmatter {
		ix.badFM++
	}
	ix.addConcept(n)
	seen := map[string]bool{}
	for j, t := range n.doc.tags {
		k := n.doc.tagKeys[j]
		st := ix.tags[k]
		if st == nil {
			st = &tagStat{spellings: map[string]int{}}
			ix.tags[k] = st
		}
		st.count++
		st.spellings[t]++
		if !seen[k] {
			seen[k] = true
			st.notes++
		}
	}
}

// removeContributions undoes addContributions. Caller holds mu.
func (ix *Index) removeContributions(n *note) {
	ix.gen++
	// The next Texts makes a new list anyway: the old one goes now, not
	// keeping notes gone from the index alive until then.
	ix.texts.Store(nil)
	ix.adjustBroken(n.brokenCount() > 0, false)
	if n.badFrontmatter {
		ix.badFM--
	}
	ix.removeConcept(n)
	for i, l := range n.doc.links {
		ix.unlink(n.rel, n.out[i])
		if l.target != "" {
			if b := ix.linkers[l.bucket]; b != nil && b.remove(n.rel) {
				delete(ix.linkers, l.bucket)
			}
		}
	}
	seen := map[string]bool{}
	for j, t := range n.doc.tags {
		k := n.doc.tagKeys[j]
		st := ix.tags[k]
		if st == nil {
			continue
		}
		st.count--
		st.spellings[t]--
		if st.spellings[t] <= 0 {
			delete(st.spellings, t)
		}
		if !seen[k] {
			seen[k] = true
			st.notes--
		}
		if st.count <= 0 {
			delete(ix.tags, k)
		}
	}
}

func (ix *Index) link(src, target string) {
	if target == "" || target == src {
		return
	}
	s := ix.backlinks[target]
	if s == nil {
		s = &sourceSet{}
		ix.backlinks[target] = s
	}
	s.add(src)
}

func (ix *Index) unlink(src, target string) {
	if target == "" || target == src {
		return
	}
	if s := ix.backlinks[target]; s != nil && s.remove(src) {
		delete(ix.backlinks, target)
	}
}

func (ix *Index) adjustBroken(was, is bool) {
	switch {
	case was && !is:
		ix.broken--
	case !was && is:
		ix.broken++
	}
}

func (n *note) brokenCount() int {
	c := 0
	for i, l := range n.doc.links {
		if n.out[i] == "" && l.target != "" {
			c++
		}
	}
	return c
}

// resolve sets n.out from the name table.
func (n *note) resolve(names *names) {
	n.out = make([]string, len(n.doc.links))
	for i, l := range n.doc.links {
		n.out[i], _ = names.resolveLink(l, n.rel)
	}
}
