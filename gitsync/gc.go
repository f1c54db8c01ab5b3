package gitsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// Housekeeping. Every commit writes a handful of loose objects (one file
// each); left alone they pile up to hundreds of thousands of files. Once
// per GCInterval the loop packs them: with `git gc --auto` when git is on
// PATH (which packs, and prunes unreachable objects older than two weeks,
// only when there are enough loose objects to be worth it, by git's own
// rules and settings), else by packing the loose objects itself into one
// pack and deleting them (no pruning) once there are more than
// gcLooseThreshold. Nothing of it holds a lock the writes need (see
// gcConfig), and every reader finds objects that moved into a pack
// (objects.encoded reindexes on a miss). git runs at a lower CPU and I/O
// priority than the server (priority_linux.go), so a write beside it is
// not kept waiting.

// gcLooseThreshold is the loose-object estimate above which go-git packs
// (git's gc.auto default is 6700).
const gcLooseThreshold = 6700

// gcConfig runs git gc in the foreground and keeps it away from the refs.
// By default gc packs the refs and expires the reflogs, and both take
// the branch's lock (refs/heads/<branch>.lock, HEAD.lock) while they
// work: a commit of ours meanwhile waits for it (lockWait) and fails
// after that, and git runs at the lowest priority, so on a busy machine
// it can hold the lock for seconds. Without them gc takes no lock a
// commit needs. The refs stay loose (there are few), and the reflogs are
// left to grow by a line per commit (about 200 bytes), as a `git gc` run
// by hand still expires them.
var gcConfig = []string{"-c", "gc.autoDetach=false", "-c", "gc.packRefs=false",
	"-c", "gc.reflogExpire=never", "-c", "gc.reflogExpireUnreachable=never"}

// gcTimeout bounds one gc run.
const gcTimeout = 10 * time.Minute

// maybeGC starts gc in the background when GCInterval has passed since
// the last run (and at the first sync: a server started per session
// would otherwise never get to it). The loop waits for it before it ends.
func (r *Repo) maybeGC(ctx context.Context) {
	if r.opts.GCInterval < 0 {
		return
	}
	now := time.Now()
	r.statMu.Lock()
	due := r.state.lastGC.IsZero() || now.Sub(r.state.lastGC) >= r.opts.GCInterval
	if due {
		r.state.lastGC = now
	}
	r.statMu.Unlock()
	if !due {
		return
	}
	r.gcRuns.Add(1)
	go func() {
		defer r.gcRuns.Done()
		if err := r.GC(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("packing loose objects failed", "err", err)
		}
	}()
}

// backgroundWaitDelay bounds how long Wait waits, once a background
// command was stopped, for what it started to let go of its output.
const backgroundWaitDelay = time.Second

// GC packs loose objects now (see the package's housekeeping notes).
func (r *Repo) GC(ctx context.Context) (err error) {
	defer r.recoverPanic("gc", &err)
	ctx, cancel := context.WithTimeout(ctx, gcTimeout)
	defer cancel()
	if gitBin, lerr := exec.LookPath("git"); lerr == nil {
		cmd := exec.CommandContext(ctx, gitBin, slices.Concat(gcConfig, []string{"gc", "--auto", "--quiet"})...)
		cmd.Dir = r.dir
		cmd.Env = append(os.Environ(), "GIT_DIR="+r.gitDir, "GIT_WORK_TREE="+r.dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := startBackground(cmd) // niced: the writes beside it come first
		if err == nil {
			err = cmd.Wait()
		}
		if err != nil {
			return fmt.Errorf("git gc --auto: %w: %s", err, remoteText(out.Bytes()))
		}
	} else if err := r.packLoose(); err != nil {
		return err
	}
	r.reindex()
	return nil
}

// reindex makes every storage see the packs that appeared.
func (r *Repo) reindex() {
	r.mu.Lock()
	r.st.ObjectStorage.Reindex()
	r.mu.Unlock()
	r.netMu.Lock()
	r.netSt.ObjectStorage.Reindex()
	r.netMu.Unlock()
	r.hist.Reindex()
}

// looseEstimate counts the loose objects in one of the 256 object folders
// and scales it, as `git gc --auto` does.
func looseEstimate(gitDir string) int {
	entries, err := os.ReadDir(filepath.Join(gitDir, "objects", "17"))
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if len(e.Name()) == 38 {
			n++
		}
	}
	return n * 256
}

// packLoose writes every loose object into one new pack (with a separate
// go-git storage, under no lock of ours) and then deletes the loose copies.
func (r *Repo) packLoose() error {
	if looseEstimate(r.gitDir) <= gcLooseThreshold {
		return nil
	}
	return r.packAllLoose()
}

// packAllLoose is packLoose without the threshold.
func (r *Repo) packAllLoose() error {
	st := newStorage(r.gitDir, netCacheSize)
	defer st.Close()
	var loose []plumbing.Hash
	if err := st.ObjectStorage.ForEachObjectHash(func(h plumbing.Hash) error {
		loose = append(loose, h)
		return nil
	}); err != nil {
		return fmt.Errorf("list loose objects: %w", err)
	}
	if len(loose) == 0 {
		return nil
	}
	packDir := filepath.Join(r.gitDir, "objects", "pack")
	before := packFiles(packDir)
	w, err := st.PackfileWriter()
	if err != nil {
		return fmt.Errorf("pack loose objects: %w", err)
	}
	if _, err := packfile.NewEncoder(w, st, false).Encode(loose, 10); err != nil {
		w.Close()
		return fmt.Errorf("pack loose objects: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("pack loose objects: %w", err)
	}
	fresh := []string{packDir}
	for f := range packFiles(packDir) {
		if !before[f] {
			fresh = append(fresh, filepath.Join(packDir, f))
		}
	}
	if len(fresh) == 1 {
		return errors.New("pack loose objects: no pack was written")
	}
	// The pack must be on disk before the loose copies go.
	if err := fsyncAll(fresh); err != nil {
		return err
	}
	for _, h := range loose {
		if err := st.ObjectStorage.DeleteLooseObject(h); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete loose object %s: %w", h, err)
		}
	}
	r.log.Info("packed loose objects", "objects", len(loose))
	return nil
}
