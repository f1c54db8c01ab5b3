package gitsync

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"vaultmcp/gitsync/internal/store"
)

// The git index is not flushed. It is derived data: git's own default
// (core.fsync=committed) flushes objects and refs and leaves the index
// to the page cache, and flushing our 1 MB index (at 10,000 notes) was
// about 40 % of every commit's flush. A commit is durable without it:
// its objects and the ref are flushed before the write is acknowledged.
// What a power loss can leave of an index we renamed into place:
//
//   - an older index, behind HEAD: the first sync's scan for outside
//     changes stages the worktree again (as after a kill between the ref
//     update and the index rename);
//   - the new index, whole;
//   - a torn one: empty, cut short, or zeros where data should be. Its
//     checksum (the SHA-1 git puts at the end) fails.
//
// A process also keeps its commits' index in memory for a while before
// it writes the file (indexwrite.go), so a kill can leave it behind HEAD
// by a burst of commits.
//
// A torn index, and any index a process left without a clean stop, is
// rebuilt at start from HEAD, and the scan then stages the worktree
// against it; but only when a mark proves that a vaultmcp process
// changed the index since the last clean stop. Before its first commit a
// process creates its mark, .git/vaultmcp-<pid>-index.unflushed, flushed
// with that commit's objects, so the mark is on disk before the index or
// the ref can change; it keeps the mark open and flock(2)ed, and a clean
// Close writes and flushes the index and then removes the mark. At
// start, a dead process's mark means a rebuild (rebuildLeftIndex); the
// mark is removed once the index is whole and flushed.
//
// Everything else still stops the server, as an index we cannot read
// always did: a torn index without a mark (another program's, or damage
// we cannot account for), an index whose checksum holds but that go-git
// cannot read (a split index, a newer format), and one with no checksum
// at all (index.skipHash), which cannot be told from a torn one. So is a
// torn index in a sparse checkout: its skip-worktree bits are not in
// HEAD, and without them the scan would take every file left out of the
// checkout for deleted.

// markSuffix ends the name of an unflushed-index mark in .git.
const markSuffix = "-index.unflushed"

const markText = "vaultmcp renamed a git index into place without flushing it to disk.\n" +
	"While this file exists, a torn .git/index is rebuilt from HEAD at start.\n" +
	"Removed after the index is flushed (a clean stop, or the next start).\n"

// markIndexUnflushed makes sure this process's mark exists before it
// renames an index it has not flushed into place, and returns what must
// be flushed before that rename (nothing once the mark is on disk).
// r.mu is held.
func (r *Repo) markIndexUnflushed() ([]string, error) {
	if r.mark != nil {
		return nil, nil
	}
	p := filepath.Join(r.gitDir, fmt.Sprintf("vaultmcp-%d%s", os.Getpid(), markSuffix))
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("mark the git index as not flushed: %w", err)
	}
	if err := store.Flock(f); err != nil && !errors.Is(err, store.ErrNoFlock) {
		f.Close()
		return nil, fmt.Errorf("mark the git index as not flushed: %w", err)
	}
	if _, err := f.WriteString(markText); err != nil {
		f.Close()
		os.Remove(p)
		return nil, fmt.Errorf("mark the git index as not flushed: %w", err)
	}
	r.mark = f
	return []string{p, r.gitDir}, nil
}

// dropIndexMark flushes the index and then removes this process's mark:
// after a clean stop, no unflushed index is ours. r.mu is not held.
func (r *Repo) dropIndexMark() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mark == nil {
		return
	}
	if err := r.index.Write(false); err != nil {
		r.log.Warn("could not write the git index; its mark stays", "err", err)
		return
	}
	if err := r.flush(r.index.Path); err != nil {
		r.log.Warn("could not flush the git index; its mark stays", "err", err)
		return
	}
	os.Remove(r.mark.Name())
	r.mark.Close()
	r.mark = nil
}

// indexMarks returns the marks in .git, this process's too.
func (r *Repo) indexMarks() []string {
	marks, _ := filepath.Glob(filepath.Join(r.gitDir, "vaultmcp-*"+markSuffix))
	return marks
}

// deadIndexMarks returns the marks of processes that are gone.
func (r *Repo) deadIndexMarks() []string {
	var dead []string
	for _, m := range r.indexMarks() {
		if r.mark != nil && m == r.mark.Name() {
			continue
		}
		f, err := os.OpenFile(m, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if store.OwnerDead(f, filepath.Base(m)) {
			dead = append(dead, m)
		}
		f.Close()
	}
	return dead
}

// settleIndexMarks removes the marks of dead processes once the index is
// known whole: it is flushed first, since the dead process may have left
// it in the page cache only. r.mu is held.
func (r *Repo) settleIndexMarks() {
	dead := r.deadIndexMarks()
	if len(dead) == 0 {
		return
	}
	if err := r.flush(r.index.Path); err != nil {
		r.log.Warn("could not flush the git index a stopped server left", "err", err)
		return
	}
	for _, m := range dead {
		os.Remove(m)
	}
}

// rebuildLeftIndex rebuilds the index from HEAD when a process that is
// gone left its mark: it stopped without a clean Close (a kill, a crash,
// a power loss), so the index it left may lag behind HEAD by the commits
// of its last burst (indexwrite.go), or be torn. The index so matches
// HEAD, and the first sync stages the worktree against it. A sparse
// checkout keeps its index (HEAD cannot restore its skip-worktree bits):
// the first sync's scan brings it up to date. r.mu is held.
func (r *Repo) rebuildLeftIndex() error {
	if len(r.deadIndexMarks()) == 0 || r.sparseCheckout() {
		return nil
	}
	if err := r.rebuildIndex(); err != nil {
		return fmt.Errorf("gitsync: rebuild the git index a stopped server left: %w", err)
	}
	r.log.Info("a vaultmcp process stopped without writing its git index; rebuilt it from HEAD, " +
		"and the first sync stages the worktree against it")
	return nil
}

// tornIndex says how data, the content of an index file, is cut short or
// damaged the way an unflushed write is after a power loss, or returns ""
// when its checksum holds (it may still be unreadable: a split index, a
// newer format) or, with skipHash (the repository's index.skipHash), it
// has none. Without skipHash a checksum of zeros is a tail of zeros, as
// XFS or btrfs leave of a write that did not reach the disk.
func tornIndex(data []byte, skipHash bool) string {
	const header, trailer = 12, sha1.Size
	switch {
	case len(data) == 0:
		return "it is empty"
	case len(data) < header+trailer:
		return "it is shorter than any index"
	case allZero(data[:header]):
		return "it starts with zeros"
	}
	sum := data[len(data)-trailer:]
	if allZero(sum) {
		if skipHash {
			return "" // there is no checksum to check
		}
		return "its checksum is zeros and index.skipHash is off"
	}
	if s := sha1.Sum(data[:len(data)-trailer]); !bytes.Equal(s[:], sum) {
		return "its checksum does not match"
	}
	return ""
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// sparseCheckout reports whether the repository has sparse checkout on.
func (r *Repo) sparseCheckout() bool {
	return r.configTrue("core", "sparseCheckout")
}

// indexSkipsHash reports whether git writes the index without a checksum
// here: index.skipHash, which feature.manyFiles turns on unless
// index.skipHash says otherwise. The repository's config is read first,
// then the user's and the system's, as git reads them.
func (r *Repo) indexSkipsHash() bool {
	var raws []*gitconfig.Config
	if cfg, err := r.st.Config(); err == nil && cfg.Raw != nil {
		raws = append(raws, cfg.Raw)
	}
	for _, scope := range []config.Scope{config.GlobalScope, config.SystemScope} {
		if cfg, err := config.LoadConfig(scope); err == nil && cfg.Raw != nil {
			raws = append(raws, cfg.Raw)
		}
	}
	for _, raw := range raws {
		if idx := raw.Section("index"); idx.HasOption("skipHash") {
			return gitTrue(idx.Option("skipHash"))
		}
	}
	for _, raw := range raws {
		if f := raw.Section("feature"); f.HasOption("manyFiles") {
			return gitTrue(f.Option("manyFiles"))
		}
	}
	return false
}

// configTrue reports whether the repository's config sets section.key to
// a true value.
func (r *Repo) configTrue(section, key string) bool {
	cfg, err := r.st.Config()
	if err != nil || cfg.Raw == nil {
		return false
	}
	sec := cfg.Raw.Section(section)
	return sec.HasOption(key) && gitTrue(sec.Option(key))
}

// gitTrue reports whether v, the value of a key that is set, is one of
// git's spellings of true: a key given with no value (which go-git reads
// as ""), true, yes, on, or a number other than zero.
func gitTrue(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "yes", "on":
		return true
	}
	n, err := strconv.ParseInt(v, 0, 64)
	return err == nil && n != 0
}

// repairIndex is CheckIndex's answer to an index that failed to load
// with loadErr: a torn index covered by a mark is rebuilt, anything else
// is an error that says what to do. r.mu is held.
func (r *Repo) repairIndex(loadErr error) error {
	data, err := os.ReadFile(r.index.Path)
	if err != nil {
		return fmt.Errorf("gitsync: %w", loadErr)
	}
	skipHash := r.indexSkipsHash()
	why := tornIndex(data, skipHash)
	switch {
	case why == "" && skipHash && len(data) >= sha1.Size && allZero(data[len(data)-sha1.Size:]):
		return fmt.Errorf("gitsync: %w: the git index has no checksum (index.skipHash is on), which go-git cannot read; "+
			"to write it with one: git config index.skipHash false && git update-index --force-write-index", loadErr)
	case why == "":
		return fmt.Errorf("gitsync: %w (if it uses split index: git update-index --no-split-index)", loadErr)
	case len(r.indexMarks()) == 0:
		// A checksum of zeros is also what git writes with index.skipHash
		// set outside the repository (the user's global config): the
		// command below writes one either way.
		return fmt.Errorf("gitsync: the git index is damaged (%s) and no vaultmcp process left it unflushed; "+
			"to rebuild it from HEAD, keeping your files: rm .git/index && git -c index.skipHash=false reset", why)
	case r.sparseCheckout():
		return fmt.Errorf("gitsync: the git index is damaged (%s) and this is a sparse checkout, "+
			"whose index HEAD cannot restore: rm .git/index && git reset && git sparse-checkout reapply", why)
	}
	if err := r.rebuildIndex(); err != nil {
		return fmt.Errorf("gitsync: rebuild the damaged git index (%s): %w", why, err)
	}
	r.log.Warn("the git index was torn by a stop before it reached the disk (a power loss); rebuilt it from HEAD, "+
		"and the first sync stages the worktree against it", "why", why)
	return nil
}

// rebuildIndex replaces the index by HEAD's tree, flushed. Its entries
// have no stat data, so the scan for outside changes hashes every file
// once and stages what differs from HEAD. r.mu is held.
func (r *Repo) rebuildIndex() error {
	var es []*index.Entry
	head, err := storer.ResolveReference(r.st, plumbing.HEAD)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		// Unborn branch: an empty index.
	case err != nil:
		return fmt.Errorf("read HEAD: %w", err)
	default:
		c, err := r.obj.Commit(head.Hash())
		if err != nil {
			return err
		}
		err = r.obj.Walk(c.TreeHash, "", func(fe store.FileEntry) {
			es = append(es, &index.Entry{Name: fe.Path, Hash: fe.Hash, Mode: fe.Mode})
		})
		if err != nil {
			return err
		}
	}
	store.SortEntries(es)
	if _, err := r.index.HoldAnd(false); err != nil {
		return err
	}
	r.index.Stage(&index.Index{Version: 2, Entries: es}, time.Now())
	if err := r.index.Write(!r.opts.NoFsync); err != nil {
		return err
	}
	return r.flush(r.gitDir)
}
