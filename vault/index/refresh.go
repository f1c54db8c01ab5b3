package index

import (
	"bytes"
	"io/fs"
	"os"

	"vaultmcp/vault"
)

// written is a note's text as the index itself wrote it (a relinked
// note of a rename), with the file as written, until the change is
// reported back (Refresh).
type written struct {
	content []byte
	fi      fs.FileInfo
	abs     string // where it was written
}

// keepWritten remembers the texts of a batch the index wrote, fis being
// what vault.Tx.WriteFiles reported of the files. The refresh that
// follows the change's commit takes each text from here rather than from
// disk, as long as the file is still the one written (same identity, size
// and modification time): a rename relinking 1,800 notes so neither reads
// them back nor resolves their paths again. Texts of a change that was
// rolled back instead are dropped with the next batch; the refresh of one
// would not find its file matching anyway.
func (ix *Index) keepWritten(batch []vault.FileWrite, fis []fs.FileInfo) {
	ix.ownMu.Lock()
	defer ix.ownMu.Unlock()
	ix.own = make(map[string]written, len(batch))
	for i, fw := range batch {
		ix.own[fw.Path.Rel] = written{content: fw.Data, fi: fis[i], abs: fw.Path.Abs}
	}
}

// writtenPath returns where the index (or the change: see ownText) wrote
// the note rel in the change being reported, when the file there is still the one written (same
// identity, size and modification time) and the note is indexed. The
// path was resolved for the write, under the vault's write lock: a
// refresh taking it from here spares resolving each of a large rename's
// relinked notes again, one lookup per folder of its path.
func (ix *Index) writtenPath(rel string) (string, bool) {
	w, found := ix.ownText(rel, false)
	if !found {
		return "", false
	}
	ix.mu.RLock()
	_, known := ix.files[rel]
	ix.mu.RUnlock()
	if !known {
		return "", false
	}
	fi, err := os.Lstat(w.abs)
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, w.fi) || fi.Size() != w.fi.Size() || !fi.ModTime().Equal(w.fi.ModTime()) {
		return "", false
	}
	return w.abs, true
}

// takeWritten returns the text the index wrote to rel, if the file at abs
// is still the one written, and forgets it either way.
func (ix *Index) takeWritten(rel, abs string) (content []byte, fi fs.FileInfo, ok bool) {
	w, found := ix.ownText(rel, true)
	if !found || int64(len(w.content)) > ix.maxNote {
		return nil, nil, false
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, w.fi) || fi.Size() != w.fi.Size() || !fi.ModTime().Equal(w.fi.ModTime()) {
		return nil, nil, false
	}
	return w.content, fi, true
}

// ownText returns the text the change being reported wrote to rel: the
// index's own (a relinked note of a rename), forgotten when take is set,
// else what the vault says the change wrote (a write_file, a patch_note:
// see vault.Vault.Written). The caller checks the file is still the one
// written before taking it.
func (ix *Index) ownText(rel string, take bool) (written, bool) {
	ix.ownMu.Lock()
	w, found := ix.own[rel]
	if take {
		delete(ix.own, rel)
	}
	ix.ownMu.Unlock()
	if found {
		return w, true
	}
	content, abs, fi, ok := ix.v.Written(rel)
	if !ok {
		return written{}, false
	}
	return written{content: content, fi: fi, abs: abs}, true
}

// reload reads the note rel again for a refresh, from abs when the caller
// resolved it ("": resolved here). n is nil when the note cannot be read
// (it vanished or is unreadable). same says the file holds exactly the
// text the index already has: n is then the indexed note, its size and
// modification time brought up to date, and nothing is parsed again. That
// is the common case of the watcher's report of the server's own writes
// (a rename that relinks 1,800 notes is reported again by the watcher a
// moment later), of an editor saving without a change, and of a pull that
// leaves a file as it was. The bytes are compared, not the file's size and
// times: an outside edit in the same clock tick as ours and of the same
// size must not pass for ours. Caller holds refreshMu, so the indexed note
// cannot change meanwhile.
func (ix *Index) reload(rel, abs string) (n *note, same bool) {
	if abs == "" {
		p, err := ix.v.Resolve(rel)
		if err != nil {
			return nil, false
		}
		abs = p.Abs
	}
	content, fi, ok := ix.takeWritten(rel, abs)
	if !ok {
		f, ofi, err := vault.OpenRegular(abs)
		if err != nil {
			return nil, false
		}
		defer f.Close()
		if fi = ofi; fi.Size() > ix.maxNote {
			return &note{rel: rel, size: fi.Size(), modTime: fi.ModTime(), tooLarge: true, seq: ix.seq.Add(1)}, false
		}
		content = make([]byte, fi.Size())
		if _, err := readFull(f, content); err != nil {
			return nil, false
		}
	}
	ix.mu.RLock()
	prev := ix.notes[rel]
	ix.mu.RUnlock()
	if prev != nil && !prev.tooLarge && bytes.Equal(prev.content, content) {
		ix.mu.Lock()
		if prev.size != fi.Size() || !prev.modTime.Equal(fi.ModTime()) {
			// Same text, new time (a touch, an editor saving unchanged):
			// nothing to parse, but what reads times (query_notes'
			// modified filters and sort) must see a new generation.
			prev.size, prev.modTime = fi.Size(), fi.ModTime()
			ix.gen++
		}
		ix.mu.Unlock()
		return prev, true
	}
	doc, bad := ix.parse(rel, content)
	return &note{rel: rel, content: content, size: fi.Size(), modTime: fi.ModTime(), doc: doc, badFrontmatter: bad, seq: ix.seq.Add(1)}, false
}
