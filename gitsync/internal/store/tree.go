package store

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// EmptyTree is the hash of git's empty tree object.
var EmptyTree = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// Objects reads and writes git objects of one go-git storage. It keeps the
// entries of recently used trees decoded, because every commit rewrites the
// trees along its paths and the next commit reads them again.
type Objects struct {
	St    *filesystem.Storage
	dir   string // the objects folder, for writing loose objects
	trees map[plumbing.Hash][]object.TreeEntry
	order []plumbing.Hash // FIFO eviction for trees; may name trees gone
	// cached is the number of entries in trees (see treeCacheEntries).
	cached int
	// maxCached bounds cached; 0 means treeCacheEntries.
	maxCached int
	zw        *zlib.Writer // reused: a new one allocates up to ~1 MB
	// zwStored writes trees (see zlibFor).
	zwStored *zlib.Writer
	tmp      int // temp file counter
	buf      bytes.Buffer
	treeBuf  []byte // writeTree's encoding, reused
	// verified holds trees verifyTree found safe.
	verified map[plumbing.Hash]struct{}
	// Written lists the object files (and their folders) written since
	// the last takeWritten, for flushing them before a ref points at them.
	Written []string
	// batch, while a commit stages many files, collects its new blobs
	// (and, once it is large, its trees and commit) to be written
	// together (see pack.go).
	batch *objectBatch
	// packed is ObjectsOptions.Packed.
	packed func()
	// faults is nil outside tests (see SetFaults).
	faults *Faults
	// pinned, during a commit (see pinTrees), holds every tree read or
	// written, beyond the cache's bound.
	pinned map[plumbing.Hash][]object.TreeEntry
}

// treeCacheEntries bounds the decoded-tree cache by the entries it holds
// (about 70 bytes each): at most some 9 MB, room for every folder of a
// 100,000-note vault (about 105,000 entries in all; 11,000 at 10,000
// notes, where the commits' cache never grows past them, since a commit
// forgets the versions it replaced), so a write to a folder
// not written for a while does not read its trees back from disk. A
// rename that relinks notes all over a large vault rewrites most of its
// folders: with room for a quarter of them, each such rename decoded
// some 100,000 entries again (17 MB of garbage a rename at 100,000
// notes, which brings on a collection of the whole heap sooner).
const treeCacheEntries = 1 << 17

// ObjectsOptions tunes an Objects; the zero value is the defaults.
type ObjectsOptions struct {
	// MaxCachedTrees bounds the decoded-tree cache by the entries it
	// holds; 0 means treeCacheEntries.
	MaxCachedTrees int
	// Packed, when set, is told of each pack written, so the other
	// storages on the folder can re-read their pack lists.
	Packed func()
}

// NewObjects returns the object store of st, whose git folder is gitDir.
func NewObjects(st *filesystem.Storage, gitDir string, opts ObjectsOptions) *Objects {
	return &Objects{St: st, dir: filepath.Join(gitDir, "objects"), trees: make(map[plumbing.Hash][]object.TreeEntry),
		verified: map[plumbing.Hash]struct{}{}, maxCached: opts.MaxCachedTrees, packed: opts.Packed}
}

// TreeCacheBound is the most entries the decoded-tree cache holds.
func (o *Objects) TreeCacheBound() int {
	if o.maxCached == 0 {
		return treeCacheEntries
	}
	return o.maxCached
}

// WriteLoose stores an object as a loose object file, the way git does: a
// read-only temp file in the object's folder, renamed into place. It is a
// few system calls shorter than go-git's writer, which matters when every
// commit writes five objects.
func (o *Objects) WriteLoose(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, data)
	hex := h.String()
	dir := filepath.Join(o.dir, hex[:2])
	final := filepath.Join(dir, hex[2:])
	if fi, err := os.Lstat(final); err == nil {
		if fi.Size() > 0 {
			return h, nil // content-addressed: already there
		}
		// An empty object file is what a power loss leaves of a write that
		// was never flushed: write it again rather than point at it.
		os.Remove(final)
	}
	if err := o.faults.write(); err != nil {
		return plumbing.ZeroHash, err
	}
	o.tmp++
	tmp := filepath.Join(dir, fmt.Sprintf("tmp_obj_%s_%d_%d", hex[2:10], os.Getpid(), o.tmp))
	f, made, err := createInDir(dir, tmp, o.faults.beforeCreate())
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if made {
		// The new folder's own entry must reach the disk too.
		o.Written = append(o.Written, o.dir)
	}
	o.buf.Reset()
	zw := o.zlibFor(t)
	fmt.Fprintf(zw, "%s %d\x00", t, len(data))
	zw.Write(data)
	err = zw.Close()
	if err == nil {
		_, err = f.Write(o.buf.Bytes())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = renameFile(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
		return plumbing.ZeroHash, err
	}
	o.Written = append(o.Written, final, dir)
	return h, nil
}

// zlibFor returns the compressor for a loose object of type t, reset to
// write into o.buf. Blobs and commits are compressed at git's own level
// for loose objects (core.looseCompression unset): its fastest. Trees are
// stored uncompressed (zlib's level 0, which every reader takes as any
// other level): their entries are mostly 20-byte hashes, which deflate
// barely shrinks but spends CPU on, 30 µs for a folder of a dozen notes
// and 80 µs for one of 140 (level 0: 0.4 and 4 µs), some 0.1-0.2 ms of
// every commit's trees. They come out up to two thirds larger on disk
// until a gc packs them.
func (o *Objects) zlibFor(t plumbing.ObjectType) *zlib.Writer {
	zw, level := &o.zw, zlib.BestSpeed
	if t == plumbing.TreeObject {
		zw, level = &o.zwStored, zlib.NoCompression
	}
	if *zw == nil {
		*zw, _ = zlib.NewWriterLevel(&o.buf, level)
	} else {
		(*zw).Reset(&o.buf)
	}
	return *zw
}

// createAttempts bounds how often createInDir makes a folder again that
// vanished before the file could be created in it.
const createAttempts = 10

// createInDir creates file (exclusively, read-only) in the object folder
// dir, making the folder when it is missing. `git gc` (which the loop
// runs, and which the user may run) removes object folders that it
// emptied, so the folder can vanish again between being made and the
// file being created in it: that is retried, as git itself does. Once the
// file exists the folder is not empty and stays. before, when set (by
// tests), runs before each attempt. made reports that the folder had to
// be made.
func createInDir(dir, file string, before func(dir string)) (f *os.File, made bool, err error) {
	for attempt := 1; ; attempt++ {
		if before != nil {
			before(dir)
		}
		f, err := OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if !errors.Is(err, fs.ErrNotExist) || attempt == createAttempts {
			return f, made, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, made, err
		}
		made = true
	}
}

// TakeWritten returns the object files and folders written since the last
// call, for flushing.
func (o *Objects) TakeWritten() []string {
	w := o.Written
	o.Written = nil
	return w
}

// encoded returns a raw object. Packs written by another process (a fetch
// through the network storage, git gc) are picked up by re-reading the pack
// indexes once when an object is missing.
func (o *Objects) encoded(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := o.St.EncodedObject(t, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		o.St.ObjectStorage.Reindex()
		obj, err = o.St.EncodedObject(t, h)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	return obj, nil
}

// Commit reads a commit.
func (o *Objects) Commit(h plumbing.Hash) (*object.Commit, error) {
	obj, err := o.encoded(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	c := &object.Commit{}
	if err := c.Decode(obj); err != nil {
		return nil, fmt.Errorf("decode commit %s: %w", h, err)
	}
	return c, nil
}

// Tree returns the entries of a tree; the zero hash and the empty tree have
// none. The slice is shared: copy before changing it.
func (o *Objects) Tree(h plumbing.Hash) ([]object.TreeEntry, error) {
	if h.IsZero() || h == EmptyTree {
		return nil, nil
	}
	if es, ok := o.trees[h]; ok {
		return es, nil
	}
	if es, ok := o.pinned[h]; ok {
		return es, nil
	}
	obj, err := o.encoded(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	t := &object.Tree{}
	if err := t.Decode(obj); err != nil {
		return nil, fmt.Errorf("decode tree %s: %w", h, err)
	}
	o.remember(h, t.Entries)
	return t.Entries, nil
}

func (o *Objects) remember(h plumbing.Hash, es []object.TreeEntry) {
	if o.pinned != nil {
		o.pinned[h] = es
	}
	if _, ok := o.trees[h]; ok {
		return
	}
	bound := o.TreeCacheBound()
	for o.cached+len(es) > bound && len(o.order) > 0 {
		o.forget(o.order[0])
		o.order = o.order[1:]
	}
	if len(o.order) > 2*len(o.trees)+64 {
		// forget leaves its trees in order: drop them, keeping each
		// cached tree's last place.
		seen := make(map[plumbing.Hash]bool, len(o.trees))
		kept := make([]plumbing.Hash, 0, len(o.trees)+1)
		for i := len(o.order) - 1; i >= 0; i-- {
			if x := o.order[i]; !seen[x] {
				if _, ok := o.trees[x]; !ok {
					continue
				}
				seen[x] = true
				kept = append(kept, x)
			}
		}
		slices.Reverse(kept)
		o.order = kept
	}
	o.trees[h] = es
	o.cached += len(es)
	o.order = append(o.order, h)
}

// forget drops tree h from the cache (not from a commit's pinned trees).
func (o *Objects) forget(h plumbing.Hash) {
	if es, ok := o.trees[h]; ok {
		delete(o.trees, h)
		o.cached -= len(es)
	}
}

// PinTrees keeps every tree read or written from now until unpinTrees,
// whatever the cache's bound. A commit reads the trees its paths change
// and writes their new versions, then diffs the two for the history: a
// rename relinking 1,800 notes spread over a few hundred folders changes
// more trees than the cache holds, and the diff decoded the evicted ones
// again (a quarter of a second at 100,000 notes). Pinned trees are
// dropped with the commit.
func (o *Objects) PinTrees() { o.pinned = map[plumbing.Hash][]object.TreeEntry{} }

// UnpinTrees ends pinTrees.
func (o *Objects) UnpinTrees() { o.pinned = nil }

// Blob returns a blob's content.
func (o *Objects) Blob(h plumbing.Hash) ([]byte, error) {
	obj, err := o.encoded(plumbing.BlobObject, h)
	if err != nil {
		return nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return data, nil
}

// Has reports whether the object exists.
func (o *Objects) Has(h plumbing.Hash) bool {
	if o.St.HasEncodedObject(h) == nil {
		return true
	}
	o.St.ObjectStorage.Reindex()
	return o.St.HasEncodedObject(h) == nil
}

// WriteBlob stores content as a blob (a loose object, or later in a pack
// while a batch is open: see beginBlobs) and returns its hash.
func (o *Objects) WriteBlob(content []byte) (plumbing.Hash, error) {
	if h, ok := o.batchBlob(content); ok {
		return h, nil
	}
	h, err := o.WriteLoose(plumbing.BlobObject, content)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	return h, nil
}

// WriteTree stores a tree whose entries are already sorted (in the
// commit's pack when it writes one: see keepLargeBatch).
func (o *Objects) WriteTree(es []object.TreeEntry) (plumbing.Hash, error) {
	n := 0
	for _, e := range es {
		n += 8 + len(e.Name) + len(e.Hash)
	}
	// The encoding is only hashed and written out, so one buffer serves
	// every tree (a tree of a large folder is tens of KB, and a commit
	// writes one per level of its paths); a pack being collected keeps
	// what it is given, so it gets a copy.
	buf := slices.Grow(o.treeBuf[:0], n)
	for _, e := range es {
		buf = strconv.AppendUint(buf, uint64(e.Mode), 8)
		buf = append(buf, ' ')
		buf = append(buf, e.Name...)
		buf = append(buf, 0)
		buf = append(buf, e.Hash[:]...)
	}
	o.treeBuf = buf
	h := plumbing.ComputeHash(plumbing.TreeObject, buf)
	if _, ok := o.trees[h]; !ok {
		if o.batch != nil && o.batch.open {
			o.batchObject(plumbing.TreeObject, h, bytes.Clone(buf))
		} else if _, err := o.WriteLoose(plumbing.TreeObject, buf); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("write tree: %w", err)
		}
	}
	o.remember(h, es)
	return h, nil
}

// WriteCommit stores a commit (in the commit's pack when it writes one:
// see keepLargeBatch).
func (o *Objects) WriteCommit(c *object.Commit) (plumbing.Hash, error) {
	obj := &plumbing.MemoryObject{}
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	data, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	if h := plumbing.ComputeHash(plumbing.CommitObject, data); o.batchObject(plumbing.CommitObject, h, data) {
		return h, nil
	}
	h, err := o.WriteLoose(plumbing.CommitObject, data)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write commit: %w", err)
	}
	return h, nil
}

// TreeChange is the new state of one path: a blob with a mode, or gone.
type TreeChange struct {
	Hash plumbing.Hash
	Mode filemode.FileMode
	Del  bool
}

// ApplyTree returns the hash of tree h with changes applied; the keys of
// changes are '/'-separated paths relative to that tree. Only the trees
// along the changed paths are read and written, so a commit costs the depth
// of its paths, not the size of the vault; within one tree the untouched
// entries are merged with the changed ones in a single pass. An empty
// result is the zero hash (the caller writes git's empty tree at the root).
func (o *Objects) ApplyTree(h plumbing.Hash, changes map[string]TreeChange) (plumbing.Hash, error) {
	old, err := o.Tree(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	// upd maps a name of this tree to its new entry (nil: removed).
	upd := map[string]*object.TreeEntry{}
	sub := map[string]map[string]TreeChange{}
	for p, c := range changes {
		if dir, rest, ok := strings.Cut(p, "/"); ok {
			if sub[dir] == nil {
				sub[dir] = map[string]TreeChange{}
			}
			sub[dir][rest] = c
			continue
		}
		if c.Del {
			upd[p] = nil
		} else {
			upd[p] = &object.TreeEntry{Name: p, Mode: c.Mode, Hash: c.Hash}
		}
	}
	for dir, cs := range sub {
		e, replaced := upd[dir]
		if replaced && e != nil {
			continue // a file replaces the folder in the same change
		}
		var base plumbing.Hash
		if !replaced { // a folder deleted here starts again from empty
			if e, ok, err := o.child(h, dir); err != nil {
				return plumbing.ZeroHash, err
			} else if ok && e.Mode == filemode.Dir {
				base = e.Hash
			}
		}
		nh, err := o.ApplyTree(base, cs)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		switch {
		case !nh.IsZero():
			upd[dir] = &object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: nh}
		case !base.IsZero():
			upd[dir] = nil // the folder became empty
		}
	}
	adds := make([]object.TreeEntry, 0, len(upd))
	for _, e := range upd {
		if e != nil {
			adds = append(adds, *e)
		}
	}
	sort.Sort(object.TreeEntrySorter(adds))
	es := make([]object.TreeEntry, 0, len(old)+len(adds))
	for _, e := range old {
		if _, changed := upd[e.Name]; changed {
			continue
		}
		for len(adds) > 0 && treeLess(adds[0], e) {
			es = append(es, adds[0])
			adds = adds[1:]
		}
		es = append(es, e)
	}
	es = append(es, adds...)
	if len(es) == 0 {
		return plumbing.ZeroHash, nil
	}
	if !h.IsZero() && treeEntriesEqual(es, old) {
		return h, nil
	}
	nh, err := o.WriteTree(es)
	if err == nil && !h.IsZero() {
		// The folder's old version is done with once this commit has
		// diffed it: it would otherwise push the folder's current tree
		// out of the cache. A commit pins it for that diff.
		if o.pinned != nil {
			o.pinned[h] = old
		}
		o.forget(h)
	}
	return nh, err
}

// treeLess is git's tree order: folders sort as if their name ended in '/'.
func treeLess(a, b object.TreeEntry) bool { return treeOrderKey(a) < treeOrderKey(b) }

func treeEntriesEqual(a, b []object.TreeEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Lookup returns the entry at path p in tree h.
func (o *Objects) Lookup(h plumbing.Hash, p string) (object.TreeEntry, bool, error) {
	for {
		es, err := o.Tree(h)
		if err != nil {
			return object.TreeEntry{}, false, err
		}
		name, rest, more := strings.Cut(p, "/")
		var found *object.TreeEntry
		for i := range es {
			if es[i].Name == name {
				found = &es[i]
				break
			}
		}
		if found == nil {
			return object.TreeEntry{}, false, nil
		}
		if !more {
			return *found, true, nil
		}
		if found.Mode != filemode.Dir {
			return object.TreeEntry{}, false, nil
		}
		h, p = found.Hash, rest
	}
}

// SamePath reports whether path p holds the same thing (or nothing) in
// trees a and b. It descends both trees along p only and stops as soon as
// the subtrees on the path have the same hash: no full tree diff.
func (o *Objects) SamePath(a, b plumbing.Hash, p string) (bool, error) {
	for {
		if a == b {
			return true, nil
		}
		name, rest, more := strings.Cut(p, "/")
		ea, oka, err := o.child(a, name)
		if err != nil {
			return false, err
		}
		eb, okb, err := o.child(b, name)
		if err != nil {
			return false, err
		}
		switch {
		case !oka && !okb:
			return true, nil
		case oka != okb:
			return false, nil
		case !more || ea.Mode != filemode.Dir || eb.Mode != filemode.Dir:
			return ea == eb, nil
		}
		a, b, p = ea.Hash, eb.Hash, rest
	}
}

// child returns the entry name of tree h.
func (o *Objects) child(h plumbing.Hash, name string) (object.TreeEntry, bool, error) {
	es, err := o.Tree(h)
	if err != nil {
		return object.TreeEntry{}, false, err
	}
	i := sort.Search(len(es), func(i int) bool { return treeOrderKey(es[i]) >= name })
	for ; i < len(es); i++ {
		if es[i].Name == name {
			return es[i], true, nil
		}
		if !strings.HasPrefix(es[i].Name, name) {
			break
		}
	}
	// Git's order sorts folders as "name/", so a linear scan is the safe
	// fallback when the binary search lands past it.
	for _, e := range es {
		if e.Name == name {
			return e, true, nil
		}
	}
	return object.TreeEntry{}, false, nil
}

// treeOrderKey is the name git sorts a tree entry by.
func treeOrderKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// FileEntry is a blob (or symlink, or submodule) at a path in a tree.
type FileEntry struct {
	Path string
	Hash plumbing.Hash
	Mode filemode.FileMode
}

// Walk calls fn for every non-tree entry under tree h, with paths prefixed
// by prefix.
func (o *Objects) Walk(h plumbing.Hash, prefix string, fn func(FileEntry)) error {
	es, err := o.Tree(h)
	if err != nil {
		return err
	}
	for _, e := range es {
		p := joinPath(prefix, e.Name)
		if e.Mode == filemode.Dir {
			if err := o.Walk(e.Hash, p, fn); err != nil {
				return err
			}
			continue
		}
		fn(FileEntry{Path: p, Hash: e.Hash, Mode: e.Mode})
	}
	return nil
}

// Flatten returns every file under tree h by path.
func (o *Objects) Flatten(h plumbing.Hash) (map[string]FileEntry, error) {
	out := map[string]FileEntry{}
	err := o.Walk(h, "", func(e FileEntry) { out[e.Path] = e })
	return out, err
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// FileDiff is one path whose entry differs between two trees. A missing side
// has the zero hash.
type FileDiff struct {
	Path     string
	From, To FileEntry
}

// DiffTrees lists the files that differ between trees a and b, skipping
// every subtree whose hash is the same on both sides.
func (o *Objects) DiffTrees(a, b plumbing.Hash) ([]FileDiff, error) {
	var out []FileDiff
	err := o.diffInto(a, b, "", &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

func (o *Objects) diffInto(a, b plumbing.Hash, prefix string, out *[]FileDiff) error {
	if a == b {
		return nil
	}
	ea, err := o.Tree(a)
	if err != nil {
		return err
	}
	eb, err := o.Tree(b)
	if err != nil {
		return err
	}
	if !treeSorted(ea) || !treeSorted(eb) {
		return o.diffUnsorted(ea, eb, prefix, out)
	}
	// Both lists are in git's order: one merging pass pairs the entries
	// of the same name, where a map of one side cost an allocation the
	// size of the folder at every level of every commit's diff. A file
	// and a folder of the same name sort apart ("a" before "a/") and are
	// met one at a time, which diffEntry reports as the map pairing did.
	for len(ea) > 0 || len(eb) > 0 {
		var c int
		switch {
		case len(ea) == 0:
			c = 1
		case len(eb) == 0:
			c = -1
		default:
			c = cmpTreeOrder(&ea[0], &eb[0])
		}
		switch {
		case c < 0:
			if err := o.diffEntry(joinPath(prefix, ea[0].Name), &ea[0], nil, out); err != nil {
				return err
			}
			ea = ea[1:]
		case c > 0:
			if err := o.diffEntry(joinPath(prefix, eb[0].Name), nil, &eb[0], out); err != nil {
				return err
			}
			eb = eb[1:]
		default:
			if ea[0] != eb[0] {
				if err := o.diffEntry(joinPath(prefix, ea[0].Name), &ea[0], &eb[0], out); err != nil {
					return err
				}
			}
			ea, eb = ea[1:], eb[1:]
		}
	}
	return nil
}

// diffUnsorted is diffInto for trees whose entries are out of git's order
// (written by a faulty tool): it pairs the entries by name.
func (o *Objects) diffUnsorted(ea, eb []object.TreeEntry, prefix string, out *[]FileDiff) error {
	byName := make(map[string]object.TreeEntry, len(eb))
	for _, e := range eb {
		byName[e.Name] = e
	}
	for _, x := range ea {
		y, ok := byName[x.Name]
		delete(byName, x.Name)
		if ok && x == y {
			continue
		}
		if err := o.diffEntry(joinPath(prefix, x.Name), &x, optEntry(y, ok), out); err != nil {
			return err
		}
	}
	for _, y := range byName {
		if err := o.diffEntry(joinPath(prefix, y.Name), nil, &y, out); err != nil {
			return err
		}
	}
	return nil
}

// cmpTreeOrder compares two entries in git's tree order (a folder's name
// as if it ended in '/'), as treeOrderKey would, without building the
// keys.
func cmpTreeOrder(a, b *object.TreeEntry) int {
	n := min(len(a.Name), len(b.Name))
	if c := strings.Compare(a.Name[:n], b.Name[:n]); c != 0 {
		return c
	}
	// One name is a prefix of the other: the keys differ, if at all, at
	// a folder's '/' or where one of them ends.
	for i := n; ; i++ {
		ca, cb := nextKeyByte(a, i), nextKeyByte(b, i)
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
		if ca < 0 {
			return 0
		}
	}
}

// nextKeyByte is byte i of e's order key, or -1 past its end.
func nextKeyByte(e *object.TreeEntry, i int) int {
	switch {
	case i < len(e.Name):
		return int(e.Name[i])
	case i == len(e.Name) && e.Mode == filemode.Dir:
		return '/'
	}
	return -1
}

// treeSorted reports whether es is strictly in git's tree order.
func treeSorted(es []object.TreeEntry) bool {
	for i := 1; i < len(es); i++ {
		if cmpTreeOrder(&es[i-1], &es[i]) >= 0 {
			return false
		}
	}
	return true
}

func optEntry(e object.TreeEntry, ok bool) *object.TreeEntry {
	if !ok {
		return nil
	}
	return &e
}

// diffEntry compares one name in two trees; either side may be missing, a
// file or a folder.
func (o *Objects) diffEntry(p string, x, y *object.TreeEntry, out *[]FileDiff) error {
	var xdir, ydir plumbing.Hash
	var xf, yf FileEntry
	if x != nil {
		if x.Mode == filemode.Dir {
			xdir = x.Hash
		} else {
			xf = FileEntry{Path: p, Hash: x.Hash, Mode: x.Mode}
		}
	}
	if y != nil {
		if y.Mode == filemode.Dir {
			ydir = y.Hash
		} else {
			yf = FileEntry{Path: p, Hash: y.Hash, Mode: y.Mode}
		}
	}
	if !xf.Hash.IsZero() || !yf.Hash.IsZero() {
		*out = append(*out, FileDiff{Path: p, From: xf, To: yf})
	}
	if !xdir.IsZero() || !ydir.IsZero() {
		return o.diffInto(OrEmpty(xdir), OrEmpty(ydir), p, out)
	}
	return nil
}

func OrEmpty(h plumbing.Hash) plumbing.Hash {
	if h.IsZero() {
		return EmptyTree
	}
	return h
}
