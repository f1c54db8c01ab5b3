package index

import (
	"bytes"
	"io/fs"
	"os"

	"vaultmcp/vault"
	"vaultmcp/vault/markdown"
)

// written is a note's text as the index itself wrote it (a relinked
// note of a rename), with the file as written, until the change is
// reported back (Changed).
type written struct {
	content []byte
	fi      fs.FileInfo
	abs     string // where it was written
	// ahead, when not nil, is parsing content beside the change's
	// writing and commit; its result i is the note's document.
	ahead *parsedAhead
	i     int
	// taken: the refresh after the commit took the text in. The entry
	// stays for the watcher's report of the same write, which then
	// finds the file where it was written (see writtenPath) but reads
	// and compares its bytes as for any report.
	taken bool
}

// parsedAhead is the parse of the texts a batch will write, run on a
// goroutine of its own while the batch is written, flushed and committed:
// that is mostly waiting for the disk and for system calls, so the
// refresh that follows the commit finds the relinked notes parsed
// instead of parsing 1,800 of them while the rename's answer waits.
type parsedAhead struct {
	done chan struct{} // closed when docs and bad are filled in
	docs []document
	bad  []bool
}

// parseAhead starts parsing the texts of rewrites, each as the note at
// its path after the rename (what a refresh parses it as).
func (ix *Index) parseAhead(rewrites []Rewrite) *parsedAhead {
	p := &parsedAhead{done: make(chan struct{}), docs: make([]document, len(rewrites)), bad: make([]bool, len(rewrites))}
	go func() {
		defer close(p.done)
		// One parser result and key cache for the batch, as a build's
		// worker has (see parse).
		md, keys := new(markdown.Note), keyCache{}
		for i, rw := range rewrites {
			p.docs[i], p.bad[i] = ix.parseWith(rw.Rel, rw.Content, md, keys)
		}
	}()
	return p
}

// document returns the document parsed ahead for w, waiting for the
// parse to end, and false when there is none.
func (w written) document() (document, bool, bool) {
	if w.ahead == nil {
		return document{}, false, false
	}
	<-w.ahead.done
	return w.ahead.docs[w.i], w.ahead.bad[w.i], true
}

// keepWritten remembers the texts of a batch the index wrote, fis being
// what vault.Tx.WriteFiles reported of the files. The refresh that
// follows the change's commit takes each text from here rather than from
// disk, as long as the file is still the one written (same identity, size
// and modification time): a rename relinking 1,800 notes so neither reads
// them back nor resolves their paths again; the watcher's report of the
// same files a moment later finds them at the paths written too, and
// only reads and compares their bytes. Texts of a change that was rolled
// back instead are dropped with the next batch; the refresh of one would
// not find its file matching anyway.
//
// ahead, when not nil, is parsing the batch's texts in order (see
// parseAhead): the refresh takes each note's document from there too.
func (ix *Index) keepWritten(batch []vault.FileWrite, fis []fs.FileInfo, ahead *parsedAhead) {
	ix.ownMu.Lock()
	defer ix.ownMu.Unlock()
	ix.own = make(map[string]written, len(batch))
	for i, fw := range batch {
		ix.own[fw.Path.Rel] = written{content: fw.Data, fi: fis[i], abs: fw.Path.Abs, ahead: ahead, i: i}
	}
}

// writtenPath returns where the index (or the change: see ownText) wrote
// the note rel, when the file there is still the one written (same
// identity, size and modification time) and the note is indexed. The
// path was resolved for the write, under the vault's write lock: a
// refresh taking it from here spares resolving each of a large rename's
// relinked notes again, one lookup per folder of its path. fi is the
// file's stat data, just taken: the refresh takes the written text on
// them rather than asking for them again (see takeWritten).
func (ix *Index) writtenPath(rel string) (string, fs.FileInfo, bool) {
	w, found := ix.ownText(rel, false)
	if !found {
		return "", nil, false
	}
	ix.mu.RLock()
	_, known := ix.files[rel]
	ix.mu.RUnlock()
	if !known {
		return "", nil, false
	}
	fi, err := os.Lstat(w.abs)
	if err != nil || !w.isFile(fi) {
		return "", nil, false
	}
	return w.abs, fi, true
}

// isFile reports whether fi is the file w was written to, as it was
// written: same identity, size and modification time.
func (w written) isFile(fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && os.SameFile(fi, w.fi) && fi.Size() == w.fi.Size() && fi.ModTime().Equal(w.fi.ModTime())
}

// takeWritten returns what the change being reported wrote to rel, if
// the file at abs is still the one written, the first time it is asked:
// an index's own text is then marked taken (see written.taken), ok or
// not. checked, when not nil, is the file's stat data the caller has just
// taken (writtenPath, a moment before and under the same locks): it is
// compared instead of a new stat, which for a rename's 1,800 relinked
// notes is 1,800 system calls fewer while its answer waits.
func (ix *Index) takeWritten(rel, abs string, checked fs.FileInfo) (w written, fi fs.FileInfo, ok bool) {
	w, found := ix.ownText(rel, true)
	if !found || w.taken || int64(len(w.content)) > ix.maxNote {
		return written{}, nil, false
	}
	fi = checked
	if fi == nil {
		var err error
		if fi, err = os.Stat(abs); err != nil {
			return written{}, nil, false
		}
	}
	if !w.isFile(fi) {
		return written{}, nil, false
	}
	return w, fi, true
}

// ownText returns the text the change being reported wrote to rel: the
// index's own (a relinked note of a rename), marked taken when take is
// set, else what the batch being taken in says its change wrote (a
// write_file, a patch_note: see Changed), else the index's own entry
// already taken (its path and stat data, for the watcher's report of
// the same write). The caller holds refreshMu, and checks the file is
// still the one written before taking it.
func (ix *Index) ownText(rel string, take bool) (written, bool) {
	ix.ownMu.Lock()
	w, found := ix.own[rel]
	if found && !w.taken && take {
		taken := w
		// Only the path and stat data stay: the text is the note's now.
		taken.taken, taken.ahead, taken.content = true, nil, nil
		ix.own[rel] = taken
	}
	ix.ownMu.Unlock()
	if found && !w.taken {
		return w, true
	}
	if f, ok := ix.announced[rel]; ok {
		return written{content: f.Data, fi: f.Info, abs: f.Abs}, true
	}
	return w, found
}

// reload reads the note rel again for a refresh, from abs when the caller
// resolved it ("": resolved here); target is as for refreshFileAt. n is nil when the note cannot be read
// (it vanished or is unreadable). same says the file holds exactly the
// text the index already has: n is then the indexed note, its size and
// modification time brought up to date, and nothing is parsed again. That
// is the common case of the watcher's report of the server's own writes
// (a rename that relinks 1,800 notes is reported again by the watcher a
// moment later), of an editor saving without a change, and of a pull that
// leaves a file as it was. The bytes are compared, not the file's size and
// times: an outside edit in the same clock tick as ours and of the same
// size must not pass for ours. checked is the file's stat data when the
// caller has just taken them (see takeWritten), else nil. Caller holds
// refreshMu, so the indexed note cannot change meanwhile.
func (ix *Index) reload(rel, abs, target string, checked fs.FileInfo) (n *note, same bool) {
	if abs == "" {
		p, err := ix.v.Resolve(rel)
		if err != nil {
			return nil, false
		}
		abs = p.Abs
	}
	w, fi, ok := ix.takeWritten(rel, abs, checked)
	content := w.content
	if !ok {
		f, ofi, err := vault.OpenRegular(abs)
		if err != nil {
			return nil, false
		}
		defer f.Close()
		if fi = ofi; fi.Size() > ix.maxNote {
			return &note{rel: rel, target: target, size: fi.Size(), modTime: fi.ModTime(), tooLarge: true, seq: ix.seq.Add(1)}, false
		}
		content = make([]byte, fi.Size())
		if _, err := readFull(f, content); err != nil {
			return nil, false
		}
	}
	ix.mu.RLock()
	prev := ix.notes[rel]
	ix.mu.RUnlock()
	if prev != nil && !prev.tooLarge && prev.target == target && bytes.Equal(prev.content, content) {
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
	doc, bad, parsed := w.document()
	if !parsed {
		doc, bad = ix.parse(rel, content)
	}
	return &note{rel: rel, target: target, content: content, size: fi.Size(), modTime: fi.ModTime(), doc: doc, badFrontmatter: bad, seq: ix.seq.Add(1)}, false
}
