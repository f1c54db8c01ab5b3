package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Lock files and crash recovery.
//
// Git locks a file F by creating F.lock exclusively, writing the new
// content into it and renaming it over F. A process killed in between
// leaves F.lock behind, and every git command (and every commit of ours)
// then refuses to touch F. Git cannot tell a dead process's lock from a
// live one's, and neither can a file's age: `git commit` holds index.lock
// for as long as its editor is open.
//
// So every lock we take carries an owner mark: the lock is created as a
// hard link of an owner file .git/vaultmcp-<pid>-<n>.lock-owner, which the
// process keeps open and flock(2)ed while it holds the lock. At Open, an
// owner file that nobody holds a flock on (its process is gone; where
// flock is not supported, its pid is not running) is stale: the lock file
// that is the same file (same inode) is ours and is removed, then the
// owner file. A lock without an owner file is another program's: it is
// never removed, only waited for (lockWait) and reported. File systems
// without hard links (FAT, some network mounts) get plain exclusive
// creation and no automatic recovery.

// lockWait is how long a commit waits for another process's lock.
const lockWait = 2 * time.Second

// OwnerSuffix ends the name of an owner file in .git.
const OwnerSuffix = ".lock-owner"

// ErrLocked says a lock file exists and is not ours to remove.
var ErrLocked = errors.New("locked by another process")

var lockSeq atomic.Uint64

// LockFile is a held git lock: path is F.lock, f the open owner file (the
// same inode, so writes through f are the lock's content).
type LockFile struct {
	Path  string
	owner string // "" when the lock was created without an owner mark
	f     *os.File
	done  bool
}

// TakeLock creates path (an F.lock) exclusively, waiting up to lockWait
// for a lock another process holds.
func TakeLock(gitDir, path string) (*LockFile, error) {
	owner := filepath.Join(gitDir, fmt.Sprintf("vaultmcp-%d-%d%s", os.Getpid(), lockSeq.Add(1), OwnerSuffix))
	f, err := OpenFile(owner, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	if err := Flock(f); err != nil && !errors.Is(err, ErrNoFlock) {
		f.Close()
		os.Remove(owner)
		return nil, fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err := os.Link(owner, path)
		if err == nil {
			return &LockFile{Path: path, owner: owner, f: f}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			f.Close()
			os.Remove(owner)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("lock %s: %w", filepath.Base(path), err)
			}
			// No hard links here: plain exclusive creation.
			return takePlainLock(path, deadline)
		}
		if time.Now().After(deadline) {
			f.Close()
			os.Remove(owner)
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), ErrLocked)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func takePlainLock(path string, deadline time.Time) (*LockFile, error) {
	for {
		f, err := OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return &LockFile{Path: path, f: f}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", filepath.Base(path), err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), ErrLocked)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Write sets the lock's content; with sync it is flushed to disk.
func (l *LockFile) Write(data []byte, sync bool) error {
	if _, err := l.f.Write(data); err != nil {
		return err
	}
	if sync {
		return l.f.Sync()
	}
	return nil
}

// Commit renames the lock over target and releases it.
func (l *LockFile) Commit(target string) error {
	if l.done {
		return errors.New("lock already released")
	}
	l.done = true
	err := renameFile(l.Path, target)
	if err != nil {
		os.Remove(l.Path)
	}
	l.release()
	return err
}

// Abort removes the lock, leaving the target as it was.
func (l *LockFile) Abort() {
	if l.done {
		return
	}
	l.done = true
	os.Remove(l.Path)
	l.release()
}

// Release drops the owner mark after the lock file is gone (renamed or
// removed), so a crash in between leaves an owner without its lock, which
// recovery simply deletes.
func (l *LockFile) release() {
	if l.owner != "" {
		os.Remove(l.owner)
	}
	l.f.Close()
}

// RecoverLocks removes the lock files among candidates that a vaultmcp
// process left when it died, and the owner files of dead processes. It
// returns the locks it removed and those held by someone else.
func RecoverLocks(gitDir string, candidates []string) (removed, foreign []string, err error) {
	entries, err := os.ReadDir(gitDir)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", gitDir, err)
	}
	live := map[string]bool{} // lock paths a live process holds
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "vaultmcp-") || !strings.HasSuffix(name, OwnerSuffix) {
			continue
		}
		owner := filepath.Join(gitDir, name)
		f, err := os.OpenFile(owner, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		fi, statErr := f.Stat()
		if !OwnerDead(f, name) || statErr != nil {
			for _, c := range candidates {
				if ci, err := os.Lstat(c); err == nil && statErr == nil && os.SameFile(ci, fi) {
					live[c] = true
				}
			}
			f.Close()
			continue
		}
		for _, c := range candidates {
			if ci, err := os.Lstat(c); err == nil && os.SameFile(ci, fi) {
				if err := os.Remove(c); err == nil || errors.Is(err, fs.ErrNotExist) {
					removed = append(removed, c)
				}
			}
		}
		os.Remove(owner)
		f.Close()
	}
	for _, c := range candidates {
		if _, err := os.Lstat(c); err == nil && !live[c] && !contains(removed, c) {
			foreign = append(foreign, c)
		}
	}
	return removed, foreign, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// OwnerDead reports whether the process that made the owner file f (named
// name) is gone: nobody holds its flock, or, where flock is not supported,
// the pid in its name is not running.
func OwnerDead(f *os.File, name string) bool {
	err := tryFlock(f)
	if err == nil {
		return true
	}
	if !errors.Is(err, ErrNoFlock) {
		return false // held: a live process
	}
	pidText, _, _ := strings.Cut(strings.TrimPrefix(name, "vaultmcp-"), "-")
	pid, perr := strconv.Atoi(pidText)
	if perr != nil {
		return false
	}
	return pid == os.Getpid() || !ProcessAlive(pid)
}
