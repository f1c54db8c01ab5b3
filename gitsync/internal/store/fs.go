package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
)

// PlainFS is the .git folder as go-git sees it: plain os calls below root.
// go-billy's osfs.New resolves every path component for symlinks on each
// call (an Lstat per component), which doubles the cost of reading or
// writing a loose object; the repository folder is our own, so the plain
// view is enough.
type PlainFS struct{ root string }

// NewPlainFS returns the file system rooted at the folder root.
func NewPlainFS(root string) PlainFS { return PlainFS{root: root} }

var _ billy.Filesystem = PlainFS{}

func (p PlainFS) abs(name string) string { return filepath.Join(p.root, name) }

// relFile reports its name relative to the filesystem root, as go-git
// expects (it renames temp files by that name).
type relFile struct {
	billy.File
	name string
}

func (f relFile) Name() string { return f.name }

// Create truncates and writes name in place, except a pack index: go-git
// writes a fetched pack's .idx with Create, and a fetch repeated after a
// kill receives the same pack again, so a kill while the index was being
// rewritten left a valid pack with a truncated index ("wrong index v2
// file size"). A pack index is written under a temporary name and renamed
// into place when it is closed, as git does.
func (p PlainFS) Create(name string) (billy.File, error) {
	if strings.HasSuffix(name, ".idx") {
		return p.createAtomic(name)
	}
	return p.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// atomicFile is a file written under a temporary name in its folder and
// renamed to its name by Close; a process killed before that leaves the
// old file (or none) there, never a part of the new one.
type atomicFile struct {
	*os.File
	name  string // as go-git knows it
	final string
}

func (p PlainFS) createAtomic(name string) (billy.File, error) {
	final := p.abs(name)
	f, err := os.CreateTemp(filepath.Dir(final), "tmp_idx_")
	if err != nil {
		return nil, err
	}
	return &atomicFile{File: f, name: name, final: final}, nil
}

func (f *atomicFile) Name() string { return f.name }

func (f *atomicFile) Close() error {
	err := f.File.Close()
	if err == nil {
		err = os.Chmod(f.File.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.final)
	}
	if err != nil {
		os.Remove(f.File.Name())
	}
	return err
}

// Lock and Unlock are never used on a pack index.
func (f *atomicFile) Lock() error   { return nil }
func (f *atomicFile) Unlock() error { return nil }

// Open opens name for reading. A pack index is read whole at once: go-git
// decodes it with a few small reads for each of the 256 fan-out buckets,
// about a thousand system calls for each index, and it decodes every index
// again after each pack is added (a large rename's commit writes one).
func (p PlainFS) Open(name string) (billy.File, error) {
	if strings.HasSuffix(name, ".idx") {
		return p.openWhole(name)
	}
	return p.OpenFile(name, os.O_RDONLY, 0)
}

// wholeFile is a file read into memory when it was opened.
type wholeFile struct {
	*bytes.Reader
	name string
	fi   fs.FileInfo
}

var _ billy.File = (*wholeFile)(nil)

func (p PlainFS) openWhole(name string) (billy.File, error) {
	f, err := os.Open(p.abs(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", name, err)
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return &wholeFile{Reader: bytes.NewReader(data), name: name, fi: fi}, nil
}

func (f *wholeFile) Name() string               { return f.name }
func (f *wholeFile) Stat() (fs.FileInfo, error) { return f.fi, nil }
func (f *wholeFile) Close() error               { return nil }
func (f *wholeFile) Lock() error                { return nil }
func (f *wholeFile) Unlock() error              { return nil }

// Write and Truncate fail: the file was opened for reading.
func (f *wholeFile) Write([]byte) (int, error) { return 0, os.ErrPermission }
func (f *wholeFile) Truncate(int64) error      { return os.ErrPermission }

func (p PlainFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	f, err := osfs.Default.OpenFile(p.abs(name), flag, perm)
	if err != nil {
		return nil, err
	}
	return relFile{f, name}, nil
}

func (p PlainFS) Stat(name string) (os.FileInfo, error) { return os.Stat(p.abs(name)) }

func (p PlainFS) Rename(from, to string) error {
	err := os.Rename(p.abs(from), p.abs(to))
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p.abs(to)), 0o755); err != nil {
			return err
		}
		err = os.Rename(p.abs(from), p.abs(to))
	}
	return err
}

func (p PlainFS) Remove(name string) error { return os.Remove(p.abs(name)) }

func (p PlainFS) Join(elem ...string) string { return filepath.Join(elem...) }

func (p PlainFS) TempFile(dir, prefix string) (billy.File, error) {
	full := p.abs(dir)
	if err := os.MkdirAll(full, 0o755); err != nil {
		return nil, err
	}
	f, err := osfs.Default.TempFile(full, prefix)
	if err != nil {
		return nil, err
	}
	return relFile{f, filepath.Join(dir, filepath.Base(f.Name()))}, nil
}

func (p PlainFS) ReadDir(name string) ([]os.FileInfo, error) {
	return osfs.Default.ReadDir(p.abs(name))
}

func (p PlainFS) MkdirAll(name string, perm os.FileMode) error {
	return os.MkdirAll(p.abs(name), perm)
}

func (p PlainFS) Lstat(name string) (os.FileInfo, error) { return os.Lstat(p.abs(name)) }

func (p PlainFS) Symlink(target, link string) error { return os.Symlink(target, p.abs(link)) }

func (p PlainFS) Readlink(link string) (string, error) { return os.Readlink(p.abs(link)) }

func (p PlainFS) Chroot(name string) (billy.Filesystem, error) {
	return PlainFS{root: p.abs(name)}, nil
}

func (p PlainFS) Root() string { return p.root }

// Capabilities are those of the OS.
func (p PlainFS) Capabilities() billy.Capability { return billy.Capabilities(osfs.Default) }

// Chmod lets go-git make loose objects read-only, as git does.
func (p PlainFS) Chmod(name string, mode os.FileMode) error { return os.Chmod(p.abs(name), mode) }
