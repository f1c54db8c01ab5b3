package vault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"vaultmcp/internal/syncfs"
	"vaultmcp/vault/access"
	"vaultmcp/vault/changes"
)

// Tx is one change in progress. Every file operation it performs is
// undoable until the change is recorded; see Vault.Update.
type Tx struct {
	v       *Vault
	scope   *access.Scope // the request's; every path changed must be in it
	summary string
	touched []string
	// touchedSet mirrors touched once it is long (see touch).
	touchedSet map[string]bool
	undo       []func() error
	backups    []string // copies kept for undo, removed when the change is done
	// written holds the content of the files the change wrote, for the
	// recorder and the change's observers (see changes.Batch).
	written map[string]changes.File
	// pending is the file WriteFile left under its temporary name, to
	// be flushed with the commit and put into place between the
	// recorder's two phases; nil for none (see commit, settle).
	pending *pendingFile
}

// pendingFile is a file WriteFile wrote to a temporary file beside it,
// not yet flushed nor renamed into place. bar, opened before the
// temporary file was written, flushes it with the commit.
type pendingFile struct {
	rel, abs, tmp string
	bar           *syncfs.Barrier
	placed        bool
}

// rename puts the file into place.
func (pf *pendingFile) rename() error {
	if err := os.Rename(pf.tmp, pf.abs); err != nil {
		return err
	}
	pf.placed = true
	return nil
}

// settle flushes the file WriteFile left pending and puts it into place,
// as a write goes when no commit shares its flush. Every Tx operation
// settles first, so a change that goes on after a write sees the file in
// place; only the change's last write is left to the commit (see commit).
// The folder's entry is flushed by the recorder with the commit.
func (tx *Tx) settle() error {
	pf := tx.pending
	if pf == nil {
		return nil
	}
	tx.pending = nil
	defer pf.bar.Close()
	if err := syncPath(pf.tmp); err != nil {
		return osError(pf.rel, err)
	}
	if err := pf.rename(); err != nil {
		return osError(pf.rel, err)
	}
	return nil
}

// commit makes the change durable with the vault's recorder, in its two
// phases: Prepare builds and flushes the commit, with the file left
// pending; the file goes into place; Publish moves the branch. Abort,
// deferred, gives the commit up on every other path. Without a recorder
// the pending file is flushed and put into place, and that is all.
//
// On an error the caller undoes the change (the pending file's undo
// removes it, or puts the old file back once it was placed), except for a
// changes.CommittedError: the change counts.
func (tx *Tx) commit(ctx context.Context) (string, error) {
	rec := tx.v.recorder
	if rec == nil {
		return "", tx.settle()
	}
	c := changes.Change{Summary: tx.summary, Batch: changes.Batch{Paths: tx.touched, Written: tx.written}}
	pf := tx.pending
	tx.pending = nil
	if pf != nil {
		defer pf.bar.Close()
		c.Placing = &changes.Placing{Rel: pf.rel, Tmp: pf.tmp, Barrier: pf.bar}
	}
	pend, err := rec.Prepare(ctx, c)
	if err != nil {
		return "", err
	}
	defer pend.Abort()
	if pf != nil {
		if err := pf.rename(); err != nil {
			return "", osError(pf.rel, err)
		}
	}
	return pend.Publish()
}

// fail undoes the change after err, and returns err with whatever the
// undoing could not do.
func (tx *Tx) fail(err error) error {
	if rbErr := tx.rollback(); rbErr != nil {
		return errors.Join(err, rbErr)
	}
	return err
}

// Summarize sets the history message of the change, e.g.
// "write notes/daily.md".
func (tx *Tx) Summarize(format string, args ...any) {
	tx.summary = fmt.Sprintf(format, args...)
}

func (tx *Tx) touch(rel string) {
	// A batch touches thousands of paths: past a few, a set answers
	// "already there?" instead of a scan of the list per path.
	if len(tx.touched) < 16 {
		if !slices.Contains(tx.touched, rel) {
			tx.touched = append(tx.touched, rel)
		}
		return
	}
	if tx.touchedSet == nil {
		tx.touchedSet = make(map[string]bool, 2*len(tx.touched))
		for _, t := range tx.touched {
			tx.touchedSet[t] = true
		}
	}
	if !tx.touchedSet[rel] {
		tx.touchedSet[rel] = true
		tx.touched = append(tx.touched, rel)
	}
}

// WriteFile replaces p's content atomically, keeping its mode, creating
// missing parent folders. A file whose write permission is off is refused:
// the user made it read-only on purpose. A new file, and every folder
// made for it, must have a name every platform can hold that clashes with
// no sibling (see checkNew).
func (tx *Tx) WriteFile(p Path, data []byte) error {
	if err := tx.settle(); err != nil {
		return err
	}
	perm, err := tx.prepareWrite(p)
	if err != nil {
		return err
	}
	return tx.writePending(p, data, perm)
}

// writePending writes data to a temporary file beside p, unflushed, and
// leaves it to be flushed with the commit and renamed into place (see
// commit), or flushed and renamed by settle when the change goes on.
// Until then the change's undo removes it.
func (tx *Tx) writePending(p Path, data []byte, perm fs.FileMode) error {
	// Opened before the file is written, so that its syncfs reports a
	// write-back error of the file (see package syncfs).
	bar := syncfs.Open(tx.v.root)
	f, fi, err := tx.v.createTempStat(p.Abs, data, perm)
	if err == nil {
		if err = f.Close(); err != nil {
			os.Remove(f.Name())
		}
	}
	if err != nil {
		bar.Close()
		return osError(p.Given, err)
	}
	pf := &pendingFile{rel: p.Rel, abs: p.Abs, tmp: f.Name(), bar: bar}
	tx.pending = pf
	tx.undo = append(tx.undo, func() error {
		if pf.placed {
			return nil // what prepareWrite kept puts the old file back
		}
		pf.bar.Close()
		return removeIfExists(pf.tmp)
	})
	tx.touch(p.Rel)
	tx.wrote(p, data, fi)
	return nil
}

// wrote keeps what the change wrote to rel, for the recorder and the
// observers of the change (see changes.Batch), which so take the bytes
// instead of reading the file back.
func (tx *Tx) wrote(p Path, data []byte, fi fs.FileInfo) {
	if tx.written == nil {
		tx.written = make(map[string]changes.File, 1)
	}
	tx.written[p.Rel] = changes.File{Data: data, Info: fi, Abs: p.Abs}
}

// FileWrite is one file of a WriteFiles batch: its new content.
type FileWrite struct {
	Path Path
	Data []byte
}

// WriteFiles replaces the content of several files, each as WriteFile
// does, in one batch: every temporary file is written and flushed first,
// and only then is each renamed into place. A batch of minBarrierBatch
// files or more is flushed by one syncfs of the vault's file system where
// there is one (Linux, see package syncfs); otherwise the files' own flushes
// run in parallel, so the file system folds them into a few journal
// commits. A change that rewrites a thousand notes so pays for about one
// flush rather than a thousand. A failure before the renames removes
// the temporary files and leaves every file as it was; a failure during
// them is undone with the rest of the change, as any Tx operation is. The
// renames themselves are flushed by the recorder, which flushes the
// folders of the paths it commits before the commit counts.
//
// It returns each file's information as written (size, modification
// time, identity: renaming does not change them), so a caller that keeps
// the content (the index) can later tell the file is still the one it
// wrote without reading it again.
func (tx *Tx) WriteFiles(files []FileWrite) ([]fs.FileInfo, error) {
	if err := tx.settle(); err != nil {
		return nil, err
	}
	// Names are checked before any file is written, so two new files of
	// one batch would not see each other: a batch names each file once.
	seen := make(map[string]bool, len(files))
	for _, fw := range files {
		k := foldName(fw.Path.Rel)
		if seen[k] {
			return nil, newError(ErrInvalidInput, fw.Path.Given, "%s is written twice in one change", fw.Path.Given)
		}
		seen[k] = true
	}
	workers := createWorkers(len(files))
	if tx.v.creators > 0 {
		workers = tx.v.creators
	}
	perms := make([]fs.FileMode, len(files))
	if err := tx.prepareWrites(files, perms, workers); err != nil {
		return nil, err
	}
	temps := make([]string, len(files))
	infos := make([]fs.FileInfo, len(files))
	removeTemps := func() {
		for _, t := range temps {
			if t != "" {
				_ = os.Remove(t)
			}
		}
	}
	// The files of one folder are created and written one after the
	// other, and folders are shared among creators (byFolder): two
	// creators in one folder mostly wait on each other's folder lock,
	// while in different folders each runs on its own core. Each file is
	// flushed as soon as it is written, the flushes in parallel.
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first = -1
		errs  = make([]error, len(files))
		sem   = make(chan struct{}, maxParallelWrites)
	)
	fail := func(i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		errs[i] = err
		if first < 0 || i < first {
			first = i
		}
	}
	// A large batch is flushed by one barrier for the whole file system
	// (package syncfs) once every file is written; a file the barrier
	// does not cover, and every file where there is none, is flushed on
	// its own as before.
	var bar *syncfs.Barrier
	if len(files) >= minBarrierBatch {
		bar = syncfs.Open(tx.v.root)
		defer bar.Close()
	}
	// create writes file i to its temporary file, and reports false when
	// it failed, which stops every creator.
	create := func(i int) bool {
		fw := files[i]
		f, fi, err := tx.v.createTempStat(fw.Path.Abs, fw.Data, perms[i])
		if err != nil {
			fail(i, err)
			return false
		}
		temps[i] = f.Name()
		if bar.Covers(fi) {
			infos[i] = fi
			if err := f.Close(); err != nil {
				fail(i, err)
				return false
			}
			return true
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := f.Sync()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				fail(i, err)
				return
			}
			infos[i] = fi
		}()
		return true
	}
	byFolder(files, workers, create)
	wg.Wait()
	if first < 0 && bar != nil {
		if err := bar.Sync(); err != nil {
			removeTemps()
			return nil, fmt.Errorf("flush the %d files written: %w", len(files), err)
		}
	}
	if first >= 0 {
		removeTemps()
		return nil, osError(files[first].Path.Given, errs[first])
	}
	if tx.written == nil {
		tx.written = make(map[string]changes.File, len(files))
	}
	// The renames too go a folder at a time, side by side. Whichever
	// fail, the change's undo puts back every file (its backup, or its
	// removal for a new one), renamed or not.
	renamed := make([]bool, len(files))
	renameErrs := make([]error, len(files))
	rename := renameOver
	if tx.v.renameFile != nil {
		rename = tx.v.renameFile
	}
	byFolder(files, workers, func(i int) bool {
		if err := rename(temps[i], files[i].Path.Abs); err != nil {
			renameErrs[i] = err
			return false
		}
		renamed[i] = true
		return true
	})
	for i, err := range renameErrs {
		if err != nil {
			for j, t := range temps {
				if !renamed[j] {
					_ = os.Remove(t)
				}
			}
			return nil, osError(files[i].Path.Given, err)
		}
	}
	for i, fw := range files {
		tx.touch(fw.Path.Rel)
		tx.wrote(fw.Path, fw.Data, infos[i])
	}
	return infos, nil
}

// minBarrierBatch is the smallest batch flushed by one barrier for the
// whole file system rather than file by file: below it the files' own
// flushes cost less than waiting for whatever else the file system
// holds unwritten.
const minBarrierBatch = 32

// maxParallelWrites bounds the temporary files of a WriteFiles batch
// being written and flushed at once.
const maxParallelWrites = 16

// minParallelCreate is the smallest batch whose files are prepared,
// created and renamed by more than one worker (see byFolder): below it
// a goroutine each is not worth it.
const minParallelCreate = 64

// createWorkers is how many workers prepare, create and rename the files
// of a batch of n: one per core for a large batch, at most two (each
// step is mostly the kernel's work under the file system's journal,
// which more workers than that would mostly wait for), and one for a
// small batch.
func createWorkers(n int) int {
	if n < minParallelCreate {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), 2))
}

// byFolder calls fn for every file of a batch (the file's index), the
// files of one folder one after the other and in their order, the
// folders shared among workers goroutines, each taking the next folder
// when done with one. Creating, linking or renaming a file takes its
// folder's lock: workers in different folders do not wait on each other,
// workers in the same one would. It stops handing out files once fn
// reports false, and returns when every call has returned.
func byFolder(files []FileWrite, workers int, fn func(i int) bool) {
	if workers <= 1 {
		for i := range files {
			if !fn(i) {
				return
			}
		}
		return
	}
	// The folders in the order the batch first names them, each with its
	// files in batch order.
	var folders [][]int
	at := make(map[string]int)
	for i, fw := range files {
		dir := filepath.Dir(fw.Path.Abs)
		k, ok := at[dir]
		if !ok {
			k = len(folders)
			at[dir] = k
			folders = append(folders, nil)
		}
		folders[k] = append(folders[k], i)
	}
	var (
		next    atomic.Int64
		stopped atomic.Bool
		wg      sync.WaitGroup
	)
	for range min(workers, len(folders)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(folders) {
					return
				}
				for _, i := range folders[k] {
					if stopped.Load() {
						return
					}
					if !fn(i) {
						stopped.Store(true)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// prepareWrite checks that p may be written, sets its current content
// aside for a rollback (or, for a new file, creates its missing folders)
// and returns the mode the new content gets.
func (tx *Tx) prepareWrite(p Path) (fs.FileMode, error) {
	old, err := tx.checkWrite(p)
	if err != nil {
		return 0, err
	}
	if old != nil {
		if err := tx.keep(p, false); err != nil {
			return 0, err
		}
		return old.Mode().Perm(), nil
	}
	return tx.prepareNew(p)
}

// prepareNew prepares a new file p, which checkWrite found missing: it
// checks the name, creates the missing folders and gives the change's
// undo the file's removal. It returns the mode the file gets.
func (tx *Tx) prepareNew(p Path) (fs.FileMode, error) {
	if err := tx.v.checkNew(p.Given, p.Rel, ""); err != nil {
		return 0, err
	}
	if err := tx.mkdirAll(p, path.Dir(p.Rel)); err != nil {
		return 0, err
	}
	tx.undo = append(tx.undo, func() error { return removeIfExists(p.Abs) })
	return 0o644, nil
}

// checkWrite checks that p may be written, and returns the regular file
// there, or nil when there is none. It changes nothing, so the files of
// a batch are checked side by side.
func (tx *Tx) checkWrite(p Path) (fs.FileInfo, error) {
	if err := tx.allowed(p); err != nil {
		return nil, err
	}
	if p.IsRoot() {
		return nil, newError(ErrIsDir, p.Given, "Is a directory, not a file: %s", displayDir(p.Given))
	}
	old, err := os.Lstat(p.Abs)
	switch {
	case err == nil:
		if old.IsDir() {
			return nil, newError(ErrIsDir, p.Given, "Is a directory, not a file: %s", p.Given)
		}
		if !old.Mode().IsRegular() {
			return nil, notRegularError(p.Given, old.Mode())
		}
		if old.Mode().Perm()&0o200 == 0 {
			return nil, newError(ErrPermission, p.Given, "%s is read-only (its write permission is off); nothing was changed. Make it writable to change it", p.Given)
		}
		return old, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	default:
		return nil, osError(p.Given, err)
	}
}

// prepareWrites is prepareWrite for every file of a batch, setting perms[i]
// to the mode files[i] is written with. The files that exist, most of a
// batch, are checked and set aside by workers goroutines, a folder at a
// time (see byFolder); new files, which may need folders made, one
// after the other once those are done. Whatever was set aside, also when
// a check fails, is given to the change's undo.
func (tx *Tx) prepareWrites(files []FileWrite, perms []fs.FileMode, workers int) error {
	type prepared struct {
		exists bool
		backup string       // the hard link kept, "" for none
		undo   func() error // puts the file back; nil when nothing was set aside
		err    error
	}
	out := make([]prepared, len(files))
	byFolder(files, workers, func(i int) bool {
		p, r := files[i].Path, &out[i]
		old, err := tx.checkWrite(p)
		if err == nil && old != nil {
			r.exists = true
			perms[i] = old.Mode().Perm()
			r.backup, r.undo, err = tx.v.setAside(p, false)
		}
		r.err = err
		return err == nil
	})
	var first error
	for _, r := range out {
		if r.undo != nil {
			tx.undo = append(tx.undo, r.undo)
			if r.backup != "" {
				tx.backups = append(tx.backups, r.backup)
			}
		}
		if first == nil && r.err != nil {
			first = r.err
		}
	}
	if first != nil {
		return first
	}
	for i, fw := range files {
		if out[i].exists {
			continue
		}
		perm, err := tx.prepareNew(fw.Path) // checked above
		if err != nil {
			return err
		}
		perms[i] = perm
	}
	return nil
}

// keep sets the current content of the regular file p aside so a rollback
// can put it back, and moves it aside too when move is set (a deletion).
// The copy is a hard link in the same folder: it costs no disk space and
// a rollback is a rename, so a change undone on a full disk is undone
// whole. Where hard links are not supported, the content is kept in
// memory instead.
func (tx *Tx) keep(p Path, move bool) error {
	backup, undo, err := tx.v.setAside(p, move)
	if err != nil {
		return err
	}
	tx.undo = append(tx.undo, undo)
	if backup != "" {
		tx.backups = append(tx.backups, backup)
	}
	return nil
}

// setAside is keep's work, which changes nothing of the Tx: it returns
// the backup made ("" when the content is kept in memory) and the undo
// that puts the file back.
func (v *Vault) setAside(p Path, move bool) (backup string, undo func() error, err error) {
	if move {
		if backup, err = v.backupName(p.Abs); err == nil {
			err = os.Rename(p.Abs, backup)
		}
	} else {
		backup, err = linkBackup(p.Abs)
	}
	if err == nil {
		return backup, func() error { return os.Rename(backup, p.Abs) }, nil
	}
	f, fi, err := OpenRegular(p.Abs)
	if err != nil {
		return "", nil, osError(p.Given, err)
	}
	prev, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return "", nil, osError(p.Given, err)
	}
	perm := fi.Mode().Perm()
	if move {
		if err := os.Remove(p.Abs); err != nil {
			return "", nil, osError(p.Given, err)
		}
	}
	return "", func() error { return v.writeAtomic(p.Abs, prev, perm) }, nil
}

// linkBackup makes a backup of abs as a hard link under a name
// backupName would pick. The link itself refuses a name in use, so no
// lookup precedes it: a batch of 1,800 notes spares 1,800 of them.
func linkBackup(abs string) (string, error) {
	for range 10 {
		name := backupPath(abs)
		err := os.Link(abs, name)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err // a name too long, say
		}
	}
	return "", errors.New("no free backup name")
}

// backupPath is a name for a backup of abs; see backupName.
func backupPath(abs string) string {
	dir, base := filepath.Split(abs)
	return filepath.Join(dir, fmt.Sprintf("%s%d-%s-%d.bak", tempPrefix, os.Getpid(), base, rand.Uint64()))
}

// backupName returns an unused name for a backup of abs, beside it:
// tempPrefix, this process's id, the target's whole name and a random
// number (".vaultmcp-4242-daily.md-123.bak"). The sync removes a dead
// process's backups at start and must leave a live one's, so the pid is
// in the name; a target name too long to fit is never cut: the backup
// then fails with ENAMETOOLONG and keep falls back to a copy in memory.
func (v *Vault) backupName(abs string) (string, error) {
	for range 10 {
		name := backupPath(abs)
		_, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", err // a name too long, say
		}
	}
	return "", errors.New("no free backup name")
}

// Remove deletes the regular file p.
func (tx *Tx) Remove(p Path) error {
	if err := tx.settle(); err != nil {
		return err
	}
	if err := tx.allowed(p); err != nil {
		return err
	}
	fi, err := os.Lstat(p.Abs)
	if err != nil {
		return osError(p.Given, err)
	}
	if fi.IsDir() {
		return newError(ErrIsDir, p.Given, "Is a directory, not a file: %s (delete_file removes single files)", displayDir(p.Given))
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(p.Abs)
		if err != nil {
			return osError(p.Given, err)
		}
		if err := os.Remove(p.Abs); err != nil {
			return osError(p.Given, err)
		}
		tx.undo = append(tx.undo, func() error { return os.Symlink(target, p.Abs) })
		tx.touch(p.Rel)
		return nil
	}
	if !fi.Mode().IsRegular() {
		return notRegularError(p.Given, fi.Mode())
	}
	if err := tx.keep(p, true); err != nil {
		return err
	}
	tx.touch(p.Rel)
	return nil
}

// Rename moves the file from to the path to, which must not exist yet;
// missing parent folders of to are created. Names are checked as for
// WriteFile, except that renaming a file to a case variant of its own
// name is allowed.
func (tx *Tx) Rename(from, to Path) error {
	if err := tx.settle(); err != nil {
		return err
	}
	if err := tx.allowed(from); err != nil {
		return err
	}
	if err := tx.allowed(to); err != nil {
		return err
	}
	fi, err := os.Lstat(from.Abs)
	if err != nil {
		return osError(from.Given, err)
	}
	if fi.IsDir() {
		return newError(ErrIsDir, from.Given, "Is a directory, not a file: %s (rename_file moves single files)", displayDir(from.Given))
	}
	if to.IsRoot() {
		return newError(ErrIsDir, to.Given, "Target is a directory: %s", displayDir(to.Given))
	}
	if from.Rel == to.Rel {
		return newError(ErrInvalidInput, to.Given, "Source and target are the same file: %s", to.Given)
	}
	// A case-only rename on a case-insensitive disk finds the source under
	// the target's name; that is not an existing target.
	if tfi, err := os.Lstat(to.Abs); err == nil && !os.SameFile(fi, tfi) {
		return newError(ErrExists, to.Given, "Target already exists: %s (rename_file never overwrites)", to.Given)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return osError(to.Given, err)
	}
	if err := tx.v.checkNew(to.Given, to.Rel, from.Rel); err != nil {
		return err
	}
	if err := tx.mkdirAll(to, path.Dir(to.Rel)); err != nil {
		return err
	}
	if err := os.Rename(from.Abs, to.Abs); err != nil {
		return osError(to.Given, err)
	}
	tx.undo = append(tx.undo, func() error { return os.Rename(to.Abs, from.Abs) })
	tx.touch(from.Rel)
	tx.touch(to.Rel)
	return nil
}

// mkdirAll creates the folder dir (vault-relative) and its missing
// parents, remembering each one it made so a rollback removes them.
func (tx *Tx) mkdirAll(p Path, dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	var missing []string
	for d := dir; d != "." && d != ""; d = path.Dir(d) {
		fi, err := os.Stat(tx.v.abs(d))
		if err == nil {
			if !fi.IsDir() {
				return newError(ErrNotDir, p.Given, "Cannot create %s: %s is a file, not a folder", p.Given, d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return osError(p.Given, err)
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		abs := tx.v.abs(missing[i])
		if err := os.Mkdir(abs, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return osError(p.Given, err)
		}
		tx.undo = append(tx.undo, func() error { return removeIfExists(abs) })
	}
	// The recorder flushes the folder of each file it commits, which
	// makes the file's entry durable but not the new folder's own entry
	// in its parent: a power loss could then take the new folder, and
	// the committed note in it, away. So the parent of each folder made
	// is flushed here (the deepest folder is the recorder's).
	parents := make([]string, len(missing))
	for i, d := range missing {
		parents[i] = tx.v.abs(path.Dir(d))
	}
	if err := tx.v.syncDirs(parents); err != nil {
		return osError(p.Given, err)
	}
	return nil
}

// syncDirs flushes the given folders' entries to disk, in parallel when
// there are several, and returns their errors.
func (v *Vault) syncDirs(dirs []string) error {
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	for i, d := range dirs {
		if v.dirSynced != nil {
			v.dirSynced(d)
		}
		wg.Go(func() { errs[i] = syncPath(d) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// syncPath flushes the file or folder at abs: a file's content, a
// folder's entries.
func syncPath(abs string) error {
	f, err := os.Open(abs)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// rollback undoes every operation in reverse order.
func (tx *Tx) rollback() error {
	var errs []error
	for i := len(tx.undo) - 1; i >= 0; i-- {
		if err := tx.undo[i](); err != nil {
			errs = append(errs, err)
		}
	}
	tx.undo = nil
	tx.touched, tx.touchedSet = nil, nil
	if len(errs) > 0 {
		tx.backups = nil // what could not be put back stays beside it
		// Rollback errors carry absolute paths; say what happened without them.
		return fmt.Errorf("rolling back failed for %d file(s); check the vault with git status", len(errs))
	}
	tx.dropBackups()
	return nil
}

// finish forgets the undo of a change that was recorded. Its backups are
// removed in the background (see Vault.dropLater): the change is
// committed and flushed, so nothing needs them, and the answer does not
// wait for their removal.
func (tx *Tx) finish() {
	tx.undo = nil
	if len(tx.backups) > 0 {
		tx.v.dropLater(tx.backups)
		tx.backups = nil
	}
}

// dropBackups removes the copies kept for undo. A backup a rollback
// could not put back stays, so nothing is lost.
func (tx *Tx) dropBackups() {
	for _, b := range tx.backups {
		_ = removeIfExists(b)
	}
	tx.backups = nil
}

func removeIfExists(abs string) error {
	err := os.Remove(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// tempName is the os.CreateTemp pattern of an atomic write's temporary
// file: tempPrefix, this process's id (so that the sync, which removes
// leftovers of interrupted writes at start, can tell a dead process's
// file from a live one's), and the target's name, cut so that the whole
// stays within the 255 bytes a file name may have.
func tempName(base string) string {
	const maxBase = 150
	if len(base) > maxBase {
		cut := maxBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return tempPrefix + strconv.Itoa(os.Getpid()) + "-" + base + "-*.tmp"
}

// writeAtomic replaces abs with data so that readers see the old or the new
// content, never a mix: a temporary file in the same folder is written,
// synced and renamed over the target. On any failure (a full disk, say)
// the temporary file is removed and abs is untouched.
func (v *Vault) writeAtomic(abs string, data []byte, perm fs.FileMode) error {
	_, err := v.writeAtomicInfo(abs, data, perm)
	return err
}

// writeAtomicInfo is writeAtomic, returning the file's stat data as
// written (renaming keeps them).
func (v *Vault) writeAtomicInfo(abs string, data []byte, perm fs.FileMode) (fs.FileInfo, error) {
	tmp, fi, err := v.writeTemp(abs, data, perm)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, abs); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return fi, nil
}

// writeTemp writes data, with mode perm, to a new temporary file beside
// abs and flushes it, ready to be renamed over abs, with its stat data
// once flushed. On failure nothing is left behind.
func (v *Vault) writeTemp(abs string, data []byte, perm fs.FileMode) (string, fs.FileInfo, error) {
	f, err := v.createTemp(abs, data, perm)
	if err != nil {
		return "", nil, err
	}
	tmp := f.Name()
	err = f.Sync()
	var fi fs.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", nil, err
	}
	return tmp, fi, nil
}

// createTempStat is createTemp for a batch: the file is created with
// mode perm rather than changed to it after (one system call less per
// file, and none when the umask leaves perm as it is), and comes back
// with its stat data as written, taken before anything else could change
// it. On failure nothing is left behind.
func (v *Vault) createTempStat(abs string, data []byte, perm fs.FileMode) (_ *os.File, _ fs.FileInfo, err error) {
	dir, base := filepath.Split(abs)
	pattern := tempName(base)
	// os.CreateTemp puts its random part at the last "*": so does this.
	star := strings.LastIndexByte(pattern, '*')
	prefix, suffix := pattern[:star], pattern[star+1:]
	var f *os.File
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return nil, nil, err
		}
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if v.writeFault != nil {
		err = v.writeFault(f, data)
	} else {
		_, err = f.Write(data)
	}
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Mode().Perm() != perm {
		// A umask took bits off (or a default ACL added some).
		if err = f.Chmod(perm); err != nil {
			return nil, nil, err
		}
		if fi, err = f.Stat(); err != nil {
			return nil, nil, err
		}
	}
	return f, fi, nil
}

// createTemp writes data, with mode perm, to a new temporary file beside
// abs and returns it open and not yet flushed. On failure nothing is
// left behind.
func (v *Vault) createTemp(abs string, data []byte, perm fs.FileMode) (*os.File, error) {
	f, _, err := v.createTempStat(abs, data, perm)
	return f, err
}
