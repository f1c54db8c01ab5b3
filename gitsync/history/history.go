package history

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"vaultmcp/gitsync/internal/store"
)

// Source is what a History reads from the repository besides its
// objects.
type Source interface {
	// Head returns the commit the branch points at (zero when unborn).
	Head() (plumbing.Hash, error)
	// Scrub takes what must not be shown (a token in the remote's URL)
	// out of an error.
	Scrub(err error) error
}

// History reviews a repository's history: Log, NoteHistory, Diff,
// ResolveVersion, FileAt and PlanRevert, through caches that Warm fills
// and that commits handed over (HandCommit) keep current. It reads the
// objects through a go-git storage of its own on the .git folder, so a
// query never waits for a commit nor delays one. Create it with New.
type History struct {
	src  Source
	log  *slog.Logger
	hist *history
	// histSt keeps pack files open: the history reads many objects.
	histSt *filesystem.Storage
	// histCache is histSt's object cache, emptied once the history is
	// warm (Warm).
	histCache cache.Object
}

// histCacheSize is the size of the history storage's object cache;
// go-git's default (96 MB) would blow the server's memory budget.
const histCacheSize = 16 * cache.MiByte

// New returns the History of the repository whose .git folder is gitDir.
// log takes its debug messages; nil discards them.
func New(gitDir string, src Source, log *slog.Logger) *History {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hc := cache.NewObjectLRU(histCacheSize)
	st := filesystem.NewStorageWithOptions(store.NewPlainFS(gitDir), hc,
		filesystem.Options{KeepDescriptors: true, MaxOpenDescriptors: 32})
	return &History{src: src, log: log, hist: newHistory(st, gitDir), histSt: st, histCache: hc}
}

// HandCommit records commit c, just written as hash, and its changes
// against its first parent, so that following the branch reads neither
// the commit nor its trees back. It never waits for a history query.
func (r *History) HandCommit(hash plumbing.Hash, c *object.Commit, changes []store.FileDiff) {
	r.hist.handCommit(hash, c, changes)
}

// Reindex makes the history's storage read the pack list again, after
// a gc replaced the packs.
func (r *History) Reindex() {
	r.hist.mu.Lock()
	defer r.hist.mu.Unlock()
	r.histSt.ObjectStorage.Reindex()
}

// Close closes the history's storage, once no query runs.
func (r *History) Close() error {
	r.hist.mu.Lock()
	defer r.hist.mu.Unlock()
	return r.histSt.Close()
}

// history caches what walks of the commit graph learn: each commit's
// parents, times and changed paths never change, so they are computed once
// and later queries cost map lookups. On top of that cache it keeps the
// lineage of the branch head: its commits in `git log` order with an index
// from each path to the commits that changed it, so a note's history on
// 10,000+ commits is a slice walk, not a graph walk. It has its own go-git
// storage and lock, so reading history never waits for a commit nor
// delays one.
type history struct {
	mu   sync.Mutex
	obj  *store.Objects
	meta map[plumbing.Hash]*commitMeta
	lin  *lineage
	// stats memoises the lines added and removed between two blobs.
	stats map[[2]plumbing.Hash]lineCounts
	// renames memoises rename sources found for an added path.
	renames map[renameKey]renameSource
	// patches memoises rendered diffs between two blobs.
	patches map[[2]plumbing.Hash]patchBody

	// handed holds our own new commits, with their changes worked out
	// by the commit from the trees it had just written (handCommit), so
	// that following the branch reads neither those commits nor their
	// trees back. handMu guards it, not mu: a commit never waits for a
	// history query.
	handMu sync.Mutex
	handed map[plumbing.Hash]*commitMeta
}

// handLimit bounds history.handed (a history nobody reads).
const handLimit = 1024

// handCommit records commit c, just written as hash, and its changes d
// against its first parent, for commit and changes to take instead of
// reading the commit and diffing the trees. The commit goes through its
// encoding, so what is recorded is exactly what reading it back gives
// (times to the second, in the zone as written).
func (h *history) handCommit(hash plumbing.Hash, c *object.Commit, d []store.FileDiff) {
	obj := &plumbing.MemoryObject{}
	read := &object.Commit{}
	if c.Encode(obj) != nil || read.Decode(obj) != nil || obj.Hash() != hash {
		return
	}
	m := metaOf(hash, read)
	m.changes, m.diffed = d, true
	h.handMu.Lock()
	defer h.handMu.Unlock()
	if h.handed == nil || len(h.handed) >= handLimit {
		h.handed = map[plumbing.Hash]*commitMeta{}
	}
	h.handed[hash] = m
}

// takeHanded returns and forgets the commit handed as c.
func (h *history) takeHanded(c plumbing.Hash) (*commitMeta, bool) {
	h.handMu.Lock()
	defer h.handMu.Unlock()
	m, ok := h.handed[c]
	delete(h.handed, c)
	return m, ok
}

// historyCacheLimit bounds the number of cached commits (about 300 bytes
// each plus their changed paths).
const historyCacheLimit = 200000

// statsCacheLimit bounds history.stats and history.renames.
const statsCacheLimit = 8192

// commitMeta is the cached part of a commit.
type commitMeta struct {
	hash    plumbing.Hash
	parents []plumbing.Hash
	tree    plumbing.Hash
	when    time.Time // committer time: the walk order, since and "as of"
	author  time.Time // in the author's time zone
	name    string
	email   string
	message string
	changes []store.FileDiff // vs the first parent, sorted by path; nil until computed
	diffed  bool
	// changesErr says why changes could not be computed (an unreadable
	// tree); the commit is then listed without its files.
	changesErr error
}

// historyTreeCacheEntries bounds the history's own tree cache. Its
// warm-up diffs every commit and forgets no old version of a folder, so
// on a long history it fills to its bound whatever the vault's size: at
// the commits' bound that is 9 MB of the 120 MB a 10,000-note server may
// use; this bound keeps it near 2 MB.
const historyTreeCacheEntries = 1 << 15

func newHistory(st *filesystem.Storage, gitDir string) *history {
	obj := store.NewObjects(st, gitDir, store.ObjectsOptions{MaxCachedTrees: historyTreeCacheEntries})
	return &history{
		obj:     obj,
		meta:    map[plumbing.Hash]*commitMeta{},
		stats:   map[[2]plumbing.Hash]lineCounts{},
		renames: map[renameKey]renameSource{},
		patches: map[[2]plumbing.Hash]patchBody{},
	}
}

// commit returns the cached metadata of a commit.
func (h *history) commit(hash plumbing.Hash) (*commitMeta, error) {
	if m, ok := h.meta[hash]; ok {
		return m, nil
	}
	m, ok := h.takeHanded(hash)
	if !ok {
		c, err := h.obj.Commit(hash)
		if err != nil {
			return nil, err
		}
		m = metaOf(hash, c)
	}
	if len(h.meta) >= historyCacheLimit {
		// The lineage keeps what it holds; only the lookup map starts over.
		h.meta = map[plumbing.Hash]*commitMeta{}
	}
	h.meta[hash] = m
	return m, nil
}

// metaOf is the cached part of commit c, stored as hash.
func metaOf(hash plumbing.Hash, c *object.Commit) *commitMeta {
	return &commitMeta{
		hash: hash, parents: c.ParentHashes, tree: c.TreeHash, when: c.Committer.When,
		author: c.Author.When, name: c.Author.Name, email: c.Author.Email,
		message: strings.TrimRight(c.Message, "\n"),
	}
}

// changes returns the files a commit changed against its first parent. An
// unreadable tree (a partial clone, a lost object) is remembered in
// changesErr and gives no files rather than failing the caller.
func (h *history) changes(m *commitMeta) []store.FileDiff {
	if m.diffed {
		return m.changes
	}
	if hm, ok := h.takeHanded(m.hash); ok {
		m.changes, m.diffed = hm.changes, true
		return hm.changes
	}
	parentTree := store.EmptyTree
	if len(m.parents) > 0 {
		p, err := h.commit(m.parents[0])
		if err != nil {
			m.changesErr, m.diffed = err, true
			return nil
		}
		parentTree = p.tree
	}
	d, err := h.obj.DiffTrees(parentTree, m.tree)
	if err != nil {
		m.changesErr, m.diffed = err, true
		return nil
	}
	m.changes, m.diffed = d, true
	return d
}

// change returns commit m's change of path p, if it changed it.
func (h *history) change(m *commitMeta, p string) (store.FileDiff, bool) {
	cs := h.changes(m)
	i := sort.Search(len(cs), func(i int) bool { return cs[i].Path >= p })
	if i < len(cs) && cs[i].Path == p {
		return cs[i], true
	}
	return store.FileDiff{}, false
}

// lineage is the history of one branch head in `git log` order, stored
// oldest first so that new commits are appended and positions stay valid.
type lineage struct {
	head  plumbing.Hash
	order []*commitMeta
	pos   map[plumbing.Hash]int32
	// byPath lists, for each path, the positions (ascending) of the commits
	// that changed it: non-merge commits against their parent, merges only
	// where the path differs from every parent (as `git log -- path`).
	byPath map[string][]int32
	// dirs holds every folder above a changed path, so a folder filter
	// knows to look under it.
	dirs map[string]bool
	// ends are commits whose parent could not be read: the history stops
	// there (a shallow or partial clone, a lost object).
	ends []plumbing.Hash
}

func newLineage(head plumbing.Hash) *lineage {
	return &lineage{head: head, pos: map[plumbing.Hash]int32{}, byPath: map[string][]int32{}, dirs: map[string]bool{}}
}

func (l *lineage) top() int32 { return int32(len(l.order)) - 1 }

// appendMax bounds the linear chain of new commits appended to a lineage
// instead of rebuilding it.
const appendMax = 4096

// lineageFor brings the lineage up to date with head and returns it. A
// head that only added commits on top of the previous one (our commits, a
// fast-forward) is appended; anything else (a replay, a rewritten remote)
// rebuilds it from the commit cache. h.mu is held.
func (h *history) lineageFor(ctx context.Context, head plumbing.Hash) (*lineage, error) {
	if l := h.lin; l != nil && l.head == head {
		return l, nil
	}
	if head.IsZero() {
		h.lin = newLineage(head)
		return h.lin, nil
	}
	if l := h.lin; l != nil && !l.head.IsZero() {
		if chain, ok := h.chainTo(head, l); ok {
			for i := len(chain) - 1; i >= 0; i-- {
				h.appendCommit(l, chain[i])
			}
			l.head = head
			return l, nil
		}
	}
	l := newLineage(head)
	var newestFirst []*commitMeta
	err := h.walk(ctx, head, func(m *commitMeta) {
		newestFirst = append(newestFirst, m)
	}, func(missing plumbing.Hash) { l.ends = append(l.ends, missing) })
	if err != nil {
		return nil, err
	}
	l.order = make([]*commitMeta, 0, len(newestFirst))
	for i := len(newestFirst) - 1; i >= 0; i-- {
		h.appendCommit(l, newestFirst[i])
		if i%512 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	h.lin = l
	return l, nil
}

// chainTo returns the commits from head down to l.head when they form a
// single line of non-merge commits (newest first).
func (h *history) chainTo(head plumbing.Hash, l *lineage) ([]*commitMeta, bool) {
	var chain []*commitMeta
	for c := head; c != l.head; {
		if _, known := l.pos[c]; known || len(chain) >= appendMax {
			return nil, false // back to an older commit: a reset or rewrite
		}
		m, err := h.commit(c)
		if err != nil || len(m.parents) != 1 {
			return nil, false
		}
		chain = append(chain, m)
		c = m.parents[0]
	}
	return chain, true
}

// appendCommit adds m on top of the lineage and indexes its paths.
func (h *history) appendCommit(l *lineage, m *commitMeta) {
	p := int32(len(l.order))
	l.order = append(l.order, m)
	l.pos[m.hash] = p
	cs := h.changes(m)
	if len(m.parents) > 1 {
		cs = h.mergeChanges(m, cs)
	}
	for _, d := range cs {
		l.byPath[d.Path] = append(l.byPath[d.Path], p)
		for dir := d.Path; ; {
			i := strings.LastIndexByte(dir, '/')
			if i < 0 {
				break
			}
			dir = dir[:i]
			if l.dirs[dir] {
				break
			}
			l.dirs[dir] = true
		}
	}
}

// mergeChanges keeps the paths in which a merge differs from every parent:
// the rest came unchanged from one side, whose own commits list them.
func (h *history) mergeChanges(m *commitMeta, cs []store.FileDiff) []store.FileDiff {
	var out []store.FileDiff
	for _, d := range cs {
		differs := true
		for _, ph := range m.parents[1:] {
			pm, err := h.commit(ph)
			if err != nil {
				continue
			}
			if same, err := h.obj.SamePath(m.tree, pm.tree, d.Path); err == nil && same {
				differs = false
				break
			}
		}
		if differs {
			out = append(out, d)
		}
	}
	return out
}

// metaQueue orders commits newest first (committer time), like git log.
type metaQueue []*commitMeta

func (q metaQueue) Len() int           { return len(q) }
func (q metaQueue) Less(i, j int) bool { return q[i].when.After(q[j].when) }
func (q metaQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *metaQueue) Push(x any)        { *q = append(*q, x.(*commitMeta)) }
func (q *metaQueue) Pop() any {
	old := *q
	m := old[len(old)-1]
	*q = old[:len(old)-1]
	return m
}

// walk visits the commits reachable from head newest first, as git log
// orders them. A parent that cannot be read ends that line of history and
// is reported to missing instead of failing the walk.
func (h *history) walk(ctx context.Context, head plumbing.Hash, fn func(*commitMeta), missing func(plumbing.Hash)) error {
	m, err := h.commit(head)
	if err != nil {
		return err
	}
	seen := map[plumbing.Hash]bool{head: true}
	q := &metaQueue{m}
	for q.Len() > 0 {
		m := heap.Pop(q).(*commitMeta)
		fn(m)
		// Checked after fn too: the warm-up lets go of the lock in fn, and
		// Close may have closed the storage meanwhile.
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, p := range m.parents {
			if seen[p] {
				continue
			}
			seen[p] = true
			pm, err := h.commit(p)
			if err != nil {
				missing(p)
				continue
			}
			heap.Push(q, pm)
		}
	}
	return nil
}

// touchesPath reports whether a change concerns path p (a file, or a folder and
// everything under it).
func touchesPath(d store.FileDiff, p string) bool {
	return d.Path == p || strings.HasPrefix(d.Path, p+"/")
}

// historyHead returns the branch head for a history query.
func (r *History) historyHead() (plumbing.Hash, error) {
	head, err := r.src.Head()
	if err != nil {
		return plumbing.ZeroHash, r.scrub(err)
	}
	return head, nil
}

// scrub takes what must not be shown (a token in the remote's URL) out of
// an error.
func (r *History) scrub(err error) error { return r.src.Scrub(err) }

// withLineage runs fn with the history lock held and the lineage of the
// current branch head.
func (r *History) withLineage(ctx context.Context, fn func(h *history, l *lineage) error) error {
	head, err := r.historyHead()
	if err != nil {
		return err
	}
	h := r.hist
	h.mu.Lock()
	defer h.mu.Unlock()
	l, err := h.lineageFor(ctx, head)
	if err != nil {
		return fmt.Errorf("history: %w", r.scrub(err))
	}
	return fn(h, l)
}

// endNotices explains where the history stops short.
func endNotices(l *lineage) []string {
	if len(l.ends) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("The history stops at %d place(s) because older commits cannot be read (a shallow or partial clone, or a lost object), e.g. %s.",
		len(l.ends), short(l.ends[0]))}
}

// isMissing reports whether err says a git object is absent.
func isMissing(err error) bool { return errors.Is(err, plumbing.ErrObjectNotFound) }

// Warm fills the history cache (commit metadata, changed paths and
// the lineage's path index) for the whole history, so the first
// path-filtered query does not pay for it, then keeps the lineage in step
// with the branch as our commits and pulls move it, until ctx is done.
// It holds only the history lock, in short stretches.
func (r *History) Warm(ctx context.Context) {
	head, err := r.historyHead()
	if err != nil {
		return
	}
	if !head.IsZero() {
		r.warmFrom(ctx, head)
		// The walk left the cache full of what it read: every commit's
		// trees and their delta bases, 7 MB at 10,000 notes and 200
		// commits, up to histCacheSize. Queries after it read a few
		// objects each, and the resident memory budget has no room for
		// them all.
		r.histCache.Clear()
	}
	t := time.NewTicker(historyFollow)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		head, err := r.historyHead()
		if err != nil {
			continue
		}
		h := r.hist
		h.mu.Lock()
		if ctx.Err() != nil { // Close may have closed the storage meanwhile
			h.mu.Unlock()
			return
		}
		if h.lin == nil || h.lin.head != head {
			if _, err := h.lineageFor(ctx, head); err != nil && ctx.Err() == nil {
				r.log.Debug("updating the history cache", "err", err)
			}
		}
		h.mu.Unlock()
	}
}

// historyFollow is how often the warm history looks for a moved branch.
// Queries never depend on it: each one brings the lineage up to date
// itself; this only moves that cost (a pull's new diffs) off the query.
const historyFollow = 2 * time.Second

// warmFrom computes the changes of every commit reachable from head in
// stretches (letting queries in between), then builds the lineage.
func (r *History) warmFrom(ctx context.Context, head plumbing.Hash) {
	const stretch = 200
	h := r.hist
	h.mu.Lock()
	defer h.mu.Unlock()
	count := 0
	err := h.walk(ctx, head, func(m *commitMeta) {
		h.changes(m)
		count++
		if count%stretch == 0 {
			h.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(time.Millisecond):
			}
			h.mu.Lock()
		}
	}, func(plumbing.Hash) {})
	if err == nil {
		_, err = h.lineageFor(ctx, head)
	}
	if err != nil && ctx.Err() == nil {
		r.log.Debug("warming the history cache", "err", err)
	}
}

// short is a hash as abbreviated for people.
func short(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()[:7]
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
