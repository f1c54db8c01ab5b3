package store

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// IndexFile keeps the decoded .git/index in memory between commits. Decoding
// a 10,000-entry index costs milliseconds, so it is done again only when
// someone else (the git CLI) rewrote the file, which the stamp detects.
//
// A commit does not write the file either: encoding and hashing a 1 MB
// index (at 10,000 notes) and writing it out was most of a commit's CPU
// and disk traffic. It takes index.lock instead, as git does before it
// changes the index, and keeps it while idx is newer than the file;
// write later puts idx in the lock and renames it into place, once for
// a whole burst of commits (see Repo.scheduleIndexWrite). While the lock
// is held no git process changes the index, so idx stays the index, and
// a `git add` or `git commit` run meanwhile fails at once on the lock
// instead of building a commit from an index without our changes.
type IndexFile struct {
	Path  string
	idx   *index.Index // entries sorted by name, then stage
	stamp fileStamp
	// held is index.lock while idx is newer than the file (or about to
	// be: taken by a commit in progress).
	held *LockFile
	// DirtySince is when idx first differed from the file (zero when it
	// does not), lastChange when it last changed.
	DirtySince, LastChange time.Time
	buf                    bytes.Buffer // reused encoding buffer (version 4)
	// enc is the encoding of encIdx without its checksum (plus room for
	// it), and offs[i] where entry i starts in it (offs[len] is the end),
	// so that the next encoding, which mostly differs in an entry or two,
	// copies nothing and re-encodes only the entries that changed.
	enc    []byte
	offs   []int
	encIdx *index.Index
	// touched lists the positions of entries replaced in place in idx
	// since it was last encoded, while idx is encIdx (see stage).
	touched []int
}

// fileStamp identifies one version of a file by what stat tells.
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

func stampOf(fi os.FileInfo) fileStamp {
	return fileStamp{size: fi.Size(), mtime: fi.ModTime(), ino: InodeOf(fi)}
}

// errIndexLocked says the index is locked by another git process.
var errIndexLocked = errors.New("git index is locked by another process (.git/index.lock exists; if no git command is running, delete it)")

// Load returns the current index, decoding the file again only when it
// changed since we last read or wrote it. The returned index must not be
// modified (use update), nor kept past the next update, which may
// replace entries in place.
func (f *IndexFile) Load() (*index.Index, error) {
	if f.held != nil {
		return f.idx, nil // ours: nobody else changes it
	}
	fi, err := os.Stat(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		if f.idx == nil || f.stamp != (fileStamp{}) {
			f.idx = &index.Index{Version: 2}
			f.stamp = fileStamp{}
		}
		return f.idx, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stat git index: %w", err)
	}
	if f.idx != nil && stampOf(fi) == f.stamp {
		return f.idx, nil
	}
	file, err := os.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("open git index: %w", err)
	}
	defer file.Close()
	idx := &index.Index{}
	if err := index.NewDecoder(bufio.NewReaderSize(file, 64<<10)).Decode(idx); err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	SortEntries(idx.Entries)
	// Changes of ours a failed write left only in memory are dropped with
	// the file someone else wrote: the next sync's scan stages the
	// worktree against it again.
	f.idx, f.stamp = idx, stampOf(fi)
	f.DirtySince, f.LastChange = time.Time{}, time.Time{}
	return idx, nil
}

func SortEntries(es []*index.Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Name != es[j].Name {
			return es[i].Name < es[j].Name
		}
		return es[i].Stage < es[j].Stage
	})
}

// find returns the position of the first entry named name (any stage) and
// whether one exists.
func FindEntry(es []*index.Entry, name string) (int, bool) {
	i := sort.Search(len(es), func(i int) bool { return es[i].Name >= name })
	return i, i < len(es) && es[i].Name == name
}

// entry returns the merged (stage 0) entry for name, or nil.
func EntryFor(idx *index.Index, name string) *index.Entry {
	i, ok := FindEntry(idx.Entries, name)
	if !ok {
		return nil
	}
	for ; i < len(idx.Entries) && idx.Entries[i].Name == name; i++ {
		if idx.Entries[i].Stage == 0 {
			return idx.Entries[i]
		}
	}
	return nil
}

// hasPrefix reports whether any entry lies under the folder dir.
func HasEntriesUnder(idx *index.Index, dir string) bool {
	p := dir + "/"
	i := sort.Search(len(idx.Entries), func(i int) bool { return idx.Entries[i].Name >= p })
	return i < len(idx.Entries) && strings.HasPrefix(idx.Entries[i].Name, p)
}

// EntriesUnder returns the entries under folder dir.
func EntriesUnder(idx *index.Index, dir string) []*index.Entry {
	p := dir + "/"
	i := sort.Search(len(idx.Entries), func(i int) bool { return idx.Entries[i].Name >= p })
	j := i
	for j < len(idx.Entries) && strings.HasPrefix(idx.Entries[j].Name, p) {
		j++
	}
	return idx.Entries[i:j]
}

// IndexUpdate is a set of changes to index entries: set replaces every stage
// of a path by one merged entry; remove drops a path and, when it was a
// folder, everything under it.
type IndexUpdate struct {
	Set    map[string]*index.Entry
	Remove map[string]bool
}

func NewIndexUpdate() *IndexUpdate {
	return &IndexUpdate{Set: map[string]*index.Entry{}, Remove: map[string]bool{}}
}

func (u *IndexUpdate) Empty() bool { return len(u.Set) == 0 && len(u.Remove) == 0 }

// removed reports whether name is dropped by u, itself or through a folder.
func (u *IndexUpdate) removed(name string) bool {
	if len(u.Remove) == 0 {
		return false
	}
	if u.Remove[name] {
		return true
	}
	for i := strings.LastIndexByte(name, '/'); i > 0; i = strings.LastIndexByte(name[:i], '/') {
		if u.Remove[name[:i]] {
			return true
		}
	}
	return false
}

// apply returns a new index: old with u applied. old is not modified. The
// (few) changed positions are found by binary search and the untouched runs
// of entries are copied in bulk, so a commit does not pay a map lookup per
// entry of a 10,000-entry index.
func (u *IndexUpdate) apply(old *index.Index) *index.Index {
	es := old.Entries
	type span struct{ from, to int } // entries es[from:to] are dropped
	var cuts []span
	lower := func(name string) int {
		return sort.Search(len(es), func(i int) bool { return es[i].Name >= name })
	}
	adds := make([]*index.Entry, 0, len(u.Set))
	for name, e := range u.Set {
		adds = append(adds, e)
		i := lower(name)
		j := i
		for j < len(es) && es[j].Name == name {
			j++
		}
		if j > i {
			cuts = append(cuts, span{i, j})
		}
	}
	for name := range u.Remove {
		i := lower(name)
		j := i
		for j < len(es) && es[j].Name == name {
			j++
		}
		// Everything under the folder name/ ('/'+1 is '0').
		k, l := lower(name+"/"), lower(name+"0")
		if j > i {
			cuts = append(cuts, span{i, j})
		}
		if l > k {
			cuts = append(cuts, span{k, l})
		}
	}
	sort.Slice(adds, func(i, j int) bool { return adds[i].Name < adds[j].Name })
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].from < cuts[j].from })
	out := make([]*index.Entry, 0, len(es)+len(adds))
	// keep copies es[from:to], slipping in the added entries that sort
	// inside that run.
	keep := func(from, to int) {
		for from < to && len(adds) > 0 {
			at := from + sort.Search(to-from, func(i int) bool { return es[from+i].Name >= adds[0].Name })
			out = append(out, es[from:at]...)
			from = at
			if at < to {
				out = append(out, adds[0])
				adds = adds[1:]
			}
		}
		out = append(out, es[from:to]...)
	}
	pos := 0
	for _, c := range cuts {
		if c.from > pos {
			keep(pos, c.from)
		}
		pos = max(pos, c.to)
	}
	keep(pos, len(es))
	out = append(out, adds...)
	version := old.Version
	if version < 2 {
		version = 2
	}
	return &index.Index{Version: version, Entries: out}
}

// Dirty reports whether idx is newer than the file.
func (f *IndexFile) Dirty() bool { return !f.DirtySince.IsZero() }

// Hold takes index.lock unless it is held already, the way git locks the
// index: no other git process changes the index until it is released.
// took says this call took it, so that a commit that fails before it
// changes idx can give it back (release).
func (f *IndexFile) Hold() (took bool, err error) { return f.HoldAnd(true) }

// HoldAnd is hold; with reread false it does not read the file, which
// is about to be replaced whole (a rebuild).
func (f *IndexFile) HoldAnd(reread bool) (took bool, err error) {
	if f.held != nil {
		return false, nil
	}
	lock, err := TakeLock(filepath.Dir(f.Path), f.Path+".lock")
	if errors.Is(err, ErrLocked) {
		return false, errIndexLocked
	}
	if err != nil {
		return false, fmt.Errorf("lock git index: %w", err)
	}
	// Another git process may have written the index between our last
	// look and the lock: the commit's changes go on top of what it wrote.
	if reread {
		if _, err := f.Load(); err != nil {
			lock.Abort()
			return false, err
		}
	}
	f.held = lock
	return true, nil
}

// Release gives index.lock back when idx holds nothing the file lacks.
func (f *IndexFile) Release() {
	if f.held != nil && !f.Dirty() {
		f.held.Abort()
		f.held = nil
	}
}

// Stage makes idx the index; the lock must be held. The file follows at
// the next write.
func (f *IndexFile) Stage(idx *index.Index, now time.Time) {
	f.idx = idx
	f.changed(now)
}

// changed notes that idx changed at now.
func (f *IndexFile) changed(now time.Time) {
	if !f.Dirty() {
		f.DirtySince = now
	}
	f.LastChange = now
}

// Update applies upd to the index; the lock must be held. A note written
// again only replaces its entry: that is done in place, without a new
// 10,000-entry slice for every commit (indexes load returned before must
// not be kept across this call). Anything else goes through apply.
func (f *IndexFile) Update(upd *IndexUpdate, now time.Time) {
	if f.idx == nil || !f.replaceInPlace(upd) {
		f.idx = upd.apply(f.idx)
	}
	f.changed(now)
}

// replaceInPlace replaces the entries upd sets when each of them
// replaces one merged entry of the same name and upd removes nothing;
// else it reports false and changes nothing.
func (f *IndexFile) replaceInPlace(upd *IndexUpdate) bool {
	es := f.idx.Entries
	if len(upd.Remove) > 0 || len(upd.Set) == 0 {
		return len(upd.Remove) == 0 && len(upd.Set) == 0
	}
	for name := range upd.Set {
		i, ok := FindEntry(es, name)
		if !ok || es[i].Stage != 0 || (i+1 < len(es) && es[i+1].Name == name) {
			return false
		}
	}
	for name, e := range upd.Set {
		i, _ := FindEntry(es, name)
		es[i] = e
		if f.encIdx == f.idx {
			f.touched = append(f.touched, i)
		}
	}
	return true
}

// Write puts idx into the held lock and renames it over the index (with
// sync, flushed to disk first), releasing the lock; nothing to do when
// the lock is not held. On failure the lock is removed and idx stays
// newer than the file, for the next write to try again.
func (f *IndexFile) Write(sync bool) error {
	l := f.held
	if l == nil {
		return nil
	}
	f.held = nil
	// The lock may have been removed by hand meanwhile (and another
	// process's taken in its place): a rename would then move that one.
	if fi, err := os.Lstat(l.Path); err != nil || !sameAsOpen(l.f, fi) {
		l.done = true
		l.release()
		return fmt.Errorf("write git index: %s was removed while vaultmcp held it", filepath.Base(l.Path))
	}
	data, err := f.encode(f.idx)
	if err == nil {
		err = l.Write(data, sync)
	}
	if err == nil {
		err = l.Commit(f.Path)
	} else {
		l.Abort()
	}
	if err != nil {
		return fmt.Errorf("write git index: %w", err)
	}
	f.DirtySince, f.LastChange = time.Time{}, time.Time{}
	if fi, err := os.Stat(f.Path); err == nil {
		f.stamp = stampOf(fi)
	} else {
		f.idx = nil
	}
	return nil
}

// sameAsOpen reports whether fi is the file f has open.
func sameAsOpen(f *os.File, fi os.FileInfo) bool {
	ofi, err := f.Stat()
	return err == nil && os.SameFile(ofi, fi)
}

// encode serialises idx in git's index format (versions 2 and 3; version 4
// goes through go-git's encoder). Extensions are not written: git rebuilds
// its caches (cache-tree, untracked cache) when it needs them. This is a
// hand-written encoder because the generic one costs several milliseconds on
// 10,000 entries, a good part of the write budget; and it keeps the last
// encoding, so that an index that differs from it only in the content of
// a few entries (a note written again) costs re-encoding those entries and
// the checksum. The result is valid until the next call.
func (f *IndexFile) encode(idx *index.Index) ([]byte, error) {
	if idx.Version >= 4 {
		f.encIdx, f.touched = nil, f.touched[:0]
		b := &f.buf
		b.Reset()
		if err := index.NewEncoder(b).Encode(idx); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	version := idx.Version
	for _, e := range idx.Entries {
		if e.IntentToAdd || e.SkipWorktree {
			version = 3
			break
		}
	}
	if !f.patch(idx, version) {
		f.encodeAll(idx, version)
	}
	f.encIdx, f.touched = idx, f.touched[:0]
	n := f.offs[len(f.offs)-1]
	sum := sha1.Sum(f.enc[:n])
	f.enc = append(f.enc[:n], sum[:]...)
	return f.enc, nil
}

// encodeAll encodes every entry of idx into f.enc.
func (f *IndexFile) encodeAll(idx *index.Index, version uint32) {
	b := f.enc[:0]
	b = append(b, "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(idx.Entries)))
	f.offs = slices.Grow(f.offs[:0], len(idx.Entries)+1)
	for _, e := range idx.Entries {
		f.offs = append(f.offs, len(b))
		b = appendEntry(b, e)
	}
	f.offs = append(f.offs, len(b))
	f.enc = b
}

// patch turns f.enc, the encoding of f.encIdx, into that of idx in place
// when they hold the same names in the same order and every entry that
// differs (entries are compared by pointer: indexUpdate.apply keeps the
// ones it does not change) encodes to the same length; else it reports
// false and changes nothing.
func (f *IndexFile) patch(idx *index.Index, version uint32) bool {
	prev := f.encIdx
	if prev == nil || len(prev.Entries) != len(idx.Entries) || len(f.offs) != len(idx.Entries)+1 {
		return false
	}
	// Entries replaced in place (update) since the encoding differ from
	// it at touched, whether idx is prev or a new index apply made from
	// it afterwards: apply carries the replaced entry over by pointer,
	// so the comparison below cannot see that it changed.
	for _, i := range f.touched {
		if entryLen(idx.Entries[i]) != f.offs[i+1]-f.offs[i] {
			return false
		}
	}
	changed := slices.Clip(f.touched) // appended to below: never into touched
	if prev != idx {
		for i, e := range idx.Entries {
			if o := prev.Entries[i]; e != o {
				if e.Name != o.Name || entryLen(e) != f.offs[i+1]-f.offs[i] {
					return false
				}
				changed = append(changed, i)
			}
		}
	}
	binary.BigEndian.PutUint32(f.enc[4:], version)
	for _, i := range changed {
		appendEntry(f.enc[f.offs[i]:f.offs[i]], idx.Entries[i])
	}
	return true
}

// entryLen is the length of e's encoding.
func entryLen(e *index.Entry) int {
	n := 62
	if e.IntentToAdd || e.SkipWorktree {
		n = 64
	}
	return n + len(e.Name) + 8 - (n+len(e.Name))%8
}

// appendEntry appends e's encoding (version 2 or 3) to b.
func appendEntry(b []byte, e *index.Entry) []byte {
	var fixed [64]byte
	be := binary.BigEndian
	be.PutUint32(fixed[0:], secs(e.CreatedAt))
	be.PutUint32(fixed[4:], uint32(e.CreatedAt.Nanosecond()))
	be.PutUint32(fixed[8:], secs(e.ModifiedAt))
	be.PutUint32(fixed[12:], uint32(e.ModifiedAt.Nanosecond()))
	be.PutUint32(fixed[16:], e.Dev)
	be.PutUint32(fixed[20:], e.Inode)
	be.PutUint32(fixed[24:], uint32(e.Mode))
	be.PutUint32(fixed[28:], e.UID)
	be.PutUint32(fixed[32:], e.GID)
	be.PutUint32(fixed[36:], e.Size)
	copy(fixed[40:60], e.Hash[:])
	flags := uint16(e.Stage&0x3) << 12
	if l := len(e.Name); l < 0xfff {
		flags |= uint16(l)
	} else {
		flags |= 0xfff
	}
	n := 62
	if e.IntentToAdd || e.SkipWorktree {
		flags |= 0x4000
		var ext uint16
		if e.IntentToAdd {
			ext |= 1 << 13
		}
		if e.SkipWorktree {
			ext |= 1 << 14
		}
		be.PutUint16(fixed[62:], ext)
		n = 64
	}
	be.PutUint16(fixed[60:], flags)
	b = append(b, fixed[:n]...)
	b = append(b, e.Name...)
	// NUL-terminate and pad the entry to a multiple of eight bytes.
	return append(b, zeros[:8-(n+len(e.Name))%8]...)
}

// zeros pads index entries.
const zeros = "\x00\x00\x00\x00\x00\x00\x00\x00"

func secs(t time.Time) uint32 {
	if t.Unix() < 0 {
		return 0
	}
	return uint32(t.Unix())
}

// ModeOf maps a file's stat mode to the git mode recorded for it.
func ModeOf(fi os.FileInfo) filemode.FileMode {
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return filemode.Symlink
	case fi.Mode()&0o100 != 0:
		return filemode.Executable
	default:
		return filemode.Regular
	}
}
