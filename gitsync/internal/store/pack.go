package store

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// Packs. A commit that adds many blobs at once (a rename that relinks a
// thousand notes, an outside change to many files) writes them as one
// pack rather than one loose object each, together with the trees and
// the commit that go with them: a couple of files to write and flush
// instead of a thousand blobs and the few hundred trees of the folders
// they sit in, each with its folder. A commit of a few files keeps
// writing loose objects, which cost less for one or two and do not pile
// up packs that every object lookup has to search.
//
// The pack and its index are written under temporary names in
// objects/pack, flushed, and renamed into place pack first, index last, as
// git does: a pack is used only through its index, so a kill at any point
// leaves either no index (the pack is ignored, and removed as garbage by
// the next gc) or a whole pack with a whole index.
//
// A pack's entries are compressed at zlib's fastest level (git's
// pack.compression=1), on every core: deflating 1,800 notes at the
// default level takes about twice as long, for entries 3 % smaller, and a
// gc recompresses them anyway. Every zlib level reads back the same.

// PackMinBlobs is the number of new blobs from which a commit writes them,
// with its trees and itself, as one pack.
const PackMinBlobs = 32

// objectBatch holds the new objects of one commit until endBlobs writes
// them.
type objectBatch struct {
	order []plumbing.Hash
	data  map[plumbing.Hash][]byte
	types map[plumbing.Hash]plumbing.ObjectType
	blobs int
	// open: trees and commits join the batch too (see keepLargeBatch).
	open bool
}

// add collects an object once.
func (b *objectBatch) add(t plumbing.ObjectType, h plumbing.Hash, content []byte) {
	if _, ok := b.data[h]; ok {
		return
	}
	b.data[h] = content
	b.types[h] = t
	b.order = append(b.order, h)
	if t == plumbing.BlobObject {
		b.blobs++
	}
}

// BeginBlobs makes writeBlob collect blobs instead of writing them, until
// EndBlobs or DropBlobs.
func (o *Objects) BeginBlobs() {
	o.batch = &objectBatch{data: map[plumbing.Hash][]byte{}, types: map[plumbing.Hash]plumbing.ObjectType{}}
}

// DropBlobs forgets the objects collected and not written (a commit that
// failed, or that found nothing to commit). The trees among them leave
// the tree cache too: a later commit must not take one for written.
func (o *Objects) DropBlobs() {
	b := o.batch
	o.batch = nil
	if b == nil {
		return
	}
	for h, t := range b.types {
		if t == plumbing.TreeObject {
			o.forget(h)
			delete(o.pinned, h)
		}
	}
}

// KeepLargeBatch ends the batch when it holds fewer than packMinBlobs
// blobs, writing them as loose objects; a larger one stays open, so the
// commit's trees and the commit itself go into its pack (see
// Objects.batchObject), and the commit writes it with endBlobs before its
// ref may point at it.
func (o *Objects) KeepLargeBatch() error {
	if o.batch == nil {
		return nil
	}
	if o.batch.blobs < PackMinBlobs {
		return o.EndBlobs()
	}
	o.batch.open = true
	return nil
}

// batchBlob collects content when a batch is open and reports whether it
// did.
func (o *Objects) batchBlob(content []byte) (plumbing.Hash, bool) {
	if o.batch == nil {
		return plumbing.ZeroHash, false
	}
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	o.batch.add(plumbing.BlobObject, h, content)
	return h, true
}

// batchObject collects a tree or a commit, already hashed as h, when a
// large batch is open (see keepLargeBatch), and reports whether it did.
func (o *Objects) batchObject(t plumbing.ObjectType, h plumbing.Hash, content []byte) bool {
	if o.batch == nil || !o.batch.open {
		return false
	}
	o.batch.add(t, h, content)
	return true
}

// WriteBlobHashed is writeBlob for content whose hash h the caller
// already worked out: a batch takes it without hashing it again.
func (o *Objects) WriteBlobHashed(h plumbing.Hash, content []byte) error {
	if o.batch == nil {
		_, err := o.WriteBlob(content)
		return err
	}
	o.batch.add(plumbing.BlobObject, h, content)
	return nil
}

// EndBlobs writes the objects collected since beginBlobs: as one pack when
// there are at least packMinBlobs blobs among them, else as loose objects.
// Either way the files written are listed for the commit's flush
// (takeWritten).
func (o *Objects) EndBlobs() error {
	b := o.batch
	o.batch = nil
	if b == nil || len(b.order) == 0 {
		return nil
	}
	if b.blobs < PackMinBlobs {
		for _, h := range b.order {
			if _, err := o.WriteLoose(b.types[h], b.data[h]); err != nil {
				return fmt.Errorf("write %s: %w", b.types[h], err)
			}
		}
		return nil
	}
	if err := o.writeObjects(b.order, b.data, b.types); err != nil {
		o.batch = b
		o.DropBlobs()
		return fmt.Errorf("write a pack of %d objects: %w", len(b.order), err)
	}
	return nil
}

// WritePack writes the blobs in order as one pack; see writeObjects.
func (o *Objects) WritePack(order []plumbing.Hash, data map[plumbing.Hash][]byte) error {
	return o.writeObjects(order, data, nil)
}

// writeObjects writes the objects in order as one pack (version 2, no
// deltas) with its index (version 2), and makes the storage see it. types
// gives each object's type; an object it does not name is a blob.
func (o *Objects) writeObjects(order []plumbing.Hash, data map[plumbing.Hash][]byte, types map[plumbing.Hash]plumbing.ObjectType) (err error) {
	if err := o.faults.write(); err != nil {
		return err
	}
	dir := filepath.Join(o.dir, "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var temps []string
	defer func() {
		if err != nil {
			for _, t := range temps {
				os.Remove(t)
			}
		}
	}()
	var files []*os.File
	defer func() {
		for _, f := range files {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}()
	create := func(pattern string) (*os.File, error) {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		temps = append(temps, f.Name())
		files = append(files, f)
		return f, nil
	}
	pack, err := create("tmp_pack_")
	if err != nil {
		return err
	}
	sum, idx, err := o.encodePack(pack, order, data, types)
	if err != nil {
		return err
	}
	idxFile, err := create("tmp_idx_")
	if err != nil {
		return err
	}
	if _, err := idxfile.NewEncoder(idxFile).Encode(idx); err != nil {
		return err
	}
	// Both are flushed at once, before either is renamed into place: the
	// file system folds the two flushes into one journal commit.
	if err := syncFiles(pack, idxFile); err != nil {
		return err
	}
	for _, f := range files {
		err = errors.Join(err, f.Chmod(0o444), f.Close())
	}
	files = nil
	if err != nil {
		return err
	}
	base := filepath.Join(dir, "pack-"+sum.String())
	for i, ext := range []string{".pack", ".idx"} {
		if err := renameFile(temps[i], base+ext); err != nil {
			return err
		}
	}
	o.Written = append(o.Written, dir)
	o.St.ObjectStorage.Reindex()
	if o.packed != nil {
		o.packed()
	}
	return nil
}

// syncFiles flushes the files, side by side.
func syncFiles(files ...*os.File) error {
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f.Sync()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// encodePack writes the pack to w and returns its checksum and index.
func (o *Objects) encodePack(w *os.File, order []plumbing.Hash, data map[plumbing.Hash][]byte, types map[plumbing.Hash]plumbing.ObjectType) (plumbing.Hash, *idxfile.MemoryIndex, error) {
	sha := sha1.New()
	bw := bufio.NewWriterSize(w, 64<<10)
	out := func(b []byte) error {
		sha.Write(b)
		_, err := bw.Write(b)
		return err
	}
	var head [12]byte
	copy(head[:], "PACK")
	binary.BigEndian.PutUint32(head[4:], 2)
	binary.BigEndian.PutUint32(head[8:], uint32(len(order)))
	if err := out(head[:]); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	iw := &idxfile.Writer{}
	iw.OnHeader(uint32(len(order)))
	pos := uint64(len(head))
	entries, err := packEntries(order, data, types)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	for i, h := range order {
		iw.Add(h, pos, crc32.ChecksumIEEE(entries[i]))
		if err := out(entries[i]); err != nil {
			return plumbing.ZeroHash, nil, err
		}
		pos += uint64(len(entries[i]))
	}
	var sum plumbing.Hash
	copy(sum[:], sha.Sum(nil))
	if _, err := bw.Write(sum[:]); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if err := bw.Flush(); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if err := iw.OnFooter(sum); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	idx, err := iw.Index()
	return sum, idx, err
}

// packEntries returns the pack entry of each object in order (header and
// compressed content), compressed on every core. An object types does
// not name is a blob.
func packEntries(order []plumbing.Hash, data map[plumbing.Hash][]byte, types map[plumbing.Hash]plumbing.ObjectType) ([][]byte, error) {
	entries := make([][]byte, len(order))
	workers := min(runtime.GOMAXPROCS(0), len(order))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			zw, err := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
			if err != nil {
				errs[w] = err
				return
			}
			for i := w; i < len(order); i += workers {
				content := data[order[i]]
				t, ok := types[order[i]]
				if !ok {
					t = plumbing.BlobObject
				}
				buf.Reset()
				buf.Write(packEntryHeader(t, int64(len(content))))
				zw.Reset(&buf)
				zw.Write(content)
				if err := zw.Close(); err != nil {
					errs[w] = err
					return
				}
				entries[i] = bytes.Clone(buf.Bytes())
			}
		}()
	}
	wg.Wait()
	return entries, errors.Join(errs...)
}

// packEntryHeader is the type and size of a pack entry: the type in bits
// 4-6 of the first byte, the size in its low four bits and then seven bits
// per byte, low bits first, each byte but the last with its top bit set.
func packEntryHeader(t plumbing.ObjectType, size int64) []byte {
	c := byte(t)<<4 | byte(size&0x0f)
	size >>= 4
	var out []byte
	for size != 0 {
		out = append(out, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(out, c)
}
