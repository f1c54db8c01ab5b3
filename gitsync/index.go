package gitsync

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

// indexFile keeps the decoded .git/index in memory between commits. Decoding
// a 10,000-entry index costs milliseconds, so it is done again only when
// someone else (the git CLI) rewrote the file, which the stamp detects.
type indexFile struct {
	path  string
	idx   *index.Index // entries sorted by name, then stage
	stamp fileStamp
	buf   bytes.Buffer // reused encoding buffer (version 4)
	// enc is the encoding of encIdx without its checksum (plus room for
	// it), and offs[i] where entry i starts in it (offs[len] is the end),
	// so that the next encoding, which mostly differs in an entry or two,
	// copies nothing and re-encodes only the entries that changed.
	enc    []byte
	offs   []int
	encIdx *index.Index
}

// fileStamp identifies one version of a file by what stat tells.
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

func stampOf(fi os.FileInfo) fileStamp {
	return fileStamp{size: fi.Size(), mtime: fi.ModTime(), ino: inodeOf(fi)}
}

// errIndexLocked says the index is locked by another git process.
var errIndexLocked = errors.New("git index is locked by another process (.git/index.lock exists; if no git command is running, delete it)")

// load returns the current index, decoding the file again only when it
// changed since we last read or wrote it. The returned index must not be
// modified: use withUpdates to derive a new one.
func (f *indexFile) load() (*index.Index, error) {
	fi, err := os.Stat(f.path)
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
	file, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("open git index: %w", err)
	}
	defer file.Close()
	idx := &index.Index{}
	if err := index.NewDecoder(bufio.NewReaderSize(file, 64<<10)).Decode(idx); err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	sortEntries(idx.Entries)
	f.idx, f.stamp = idx, stampOf(fi)
	return idx, nil
}

func sortEntries(es []*index.Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Name != es[j].Name {
			return es[i].Name < es[j].Name
		}
		return es[i].Stage < es[j].Stage
	})
}

// find returns the position of the first entry named name (any stage) and
// whether one exists.
func findEntry(es []*index.Entry, name string) (int, bool) {
	i := sort.Search(len(es), func(i int) bool { return es[i].Name >= name })
	return i, i < len(es) && es[i].Name == name
}

// entry returns the merged (stage 0) entry for name, or nil.
func entryFor(idx *index.Index, name string) *index.Entry {
	i, ok := findEntry(idx.Entries, name)
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
func hasEntriesUnder(idx *index.Index, dir string) bool {
	p := dir + "/"
	i := sort.Search(len(idx.Entries), func(i int) bool { return idx.Entries[i].Name >= p })
	return i < len(idx.Entries) && strings.HasPrefix(idx.Entries[i].Name, p)
}

// entriesUnder returns the entries under folder dir.
func entriesUnder(idx *index.Index, dir string) []*index.Entry {
	p := dir + "/"
	i := sort.Search(len(idx.Entries), func(i int) bool { return idx.Entries[i].Name >= p })
	j := i
	for j < len(idx.Entries) && strings.HasPrefix(idx.Entries[j].Name, p) {
		j++
	}
	return idx.Entries[i:j]
}

// indexUpdate is a set of changes to index entries: set replaces every stage
// of a path by one merged entry; remove drops a path and, when it was a
// folder, everything under it.
type indexUpdate struct {
	set    map[string]*index.Entry
	remove map[string]bool
}

func newIndexUpdate() *indexUpdate {
	return &indexUpdate{set: map[string]*index.Entry{}, remove: map[string]bool{}}
}

func (u *indexUpdate) empty() bool { return len(u.set) == 0 && len(u.remove) == 0 }

// removed reports whether name is dropped by u, itself or through a folder.
func (u *indexUpdate) removed(name string) bool {
	if len(u.remove) == 0 {
		return false
	}
	if u.remove[name] {
		return true
	}
	for i := strings.LastIndexByte(name, '/'); i > 0; i = strings.LastIndexByte(name[:i], '/') {
		if u.remove[name[:i]] {
			return true
		}
	}
	return false
}

// apply returns a new index: old with u applied. old is not modified. The
// (few) changed positions are found by binary search and the untouched runs
// of entries are copied in bulk, so a commit does not pay a map lookup per
// entry of a 10,000-entry index.
func (u *indexUpdate) apply(old *index.Index) *index.Index {
	es := old.Entries
	type span struct{ from, to int } // entries es[from:to] are dropped
	var cuts []span
	lower := func(name string) int {
		return sort.Search(len(es), func(i int) bool { return es[i].Name >= name })
	}
	adds := make([]*index.Entry, 0, len(u.set))
	for name, e := range u.set {
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
	for name := range u.remove {
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

// indexLock is an index written to .git/index.lock, waiting to replace the
// index (commit) or to be thrown away (abort).
type indexLock struct {
	f    *indexFile
	idx  *index.Index
	lock *lockFile
}

// prepare writes idx to index.lock, the way git itself locks the index: no
// other git process changes the index until commit or abort. With sync the
// lock's content is flushed to disk before prepare returns.
func (f *indexFile) prepare(idx *index.Index, sync bool) (*indexLock, error) {
	lock, err := takeLock(filepath.Dir(f.path), f.path+".lock")
	if errors.Is(err, errLocked) {
		return nil, errIndexLocked
	}
	if err != nil {
		return nil, fmt.Errorf("lock git index: %w", err)
	}
	data, err := f.encode(idx)
	if err == nil {
		err = lock.write(data, sync)
	}
	if err != nil {
		lock.abort()
		return nil, fmt.Errorf("write git index: %w", err)
	}
	return &indexLock{f: f, idx: idx, lock: lock}, nil
}

// path is the lock file's path, for flushing its folder.
func (l *indexLock) path() string { return l.lock.path }

// commit moves the new index into place.
func (l *indexLock) commit() error {
	if err := l.lock.commit(l.f.path); err != nil {
		return fmt.Errorf("replace git index: %w", err)
	}
	l.f.idx = l.idx
	if fi, err := os.Stat(l.f.path); err == nil {
		l.f.stamp = stampOf(fi)
	} else {
		l.f.idx = nil
	}
	return nil
}

// abort removes the lock file, leaving the index as it was.
func (l *indexLock) abort() { l.lock.abort() }

// encode serialises idx in git's index format (versions 2 and 3; version 4
// goes through go-git's encoder). Extensions are not written: git rebuilds
// its caches (cache-tree, untracked cache) when it needs them. This is a
// hand-written encoder because the generic one costs several milliseconds on
// 10,000 entries, a good part of the write budget; and it keeps the last
// encoding, so that an index that differs from it only in the content of
// a few entries (a note written again) costs re-encoding those entries and
// the checksum. The result is valid until the next call.
func (f *indexFile) encode(idx *index.Index) ([]byte, error) {
	if idx.Version >= 4 {
		f.encIdx = nil
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
	f.encIdx = idx
	n := f.offs[len(f.offs)-1]
	sum := sha1.Sum(f.enc[:n])
	f.enc = append(f.enc[:n], sum[:]...)
	return f.enc, nil
}

// encodeAll encodes every entry of idx into f.enc.
func (f *indexFile) encodeAll(idx *index.Index, version uint32) {
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
func (f *indexFile) patch(idx *index.Index, version uint32) bool {
	prev := f.encIdx
	if prev == nil || len(prev.Entries) != len(idx.Entries) || len(f.offs) != len(idx.Entries)+1 {
		return false
	}
	var changed []int
	for i, e := range idx.Entries {
		if o := prev.Entries[i]; e != o {
			if e.Name != o.Name || entryLen(e) != f.offs[i+1]-f.offs[i] {
				return false
			}
			changed = append(changed, i)
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

// modeOf maps a file's stat mode to the git mode recorded for it.
func modeOf(fi os.FileInfo) filemode.FileMode {
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return filemode.Symlink
	case fi.Mode()&0o100 != 0:
		return filemode.Executable
	default:
		return filemode.Regular
	}
}
