package gitsync

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
)

// plainFS is the .git folder as go-git sees it: plain os calls below root.
// go-billy's osfs.New resolves every path component for symlinks on each
// call (an Lstat per component), which doubles the cost of reading or
// writing a loose object; the repository folder is our own, so the plain
// view is enough.
type plainFS struct{ root string }

var _ billy.Filesystem = plainFS{}

func (p plainFS) abs(name string) string { return filepath.Join(p.root, name) }

// relFile reports its name relative to the filesystem root, as go-git
// expects (it renames temp files by that name).
type relFile struct {
	billy.File
	name string
}

func (f relFile) Name() string { return f.name }

func (p plainFS) Create(name string) (billy.File, error) {
	return p.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (p plainFS) Open(name string) (billy.File, error) {
	return p.OpenFile(name, os.O_RDONLY, 0)
}

func (p plainFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	f, err := osfs.Default.OpenFile(p.abs(name), flag, perm)
	if err != nil {
		return nil, err
	}
	return relFile{f, name}, nil
}

func (p plainFS) Stat(name string) (os.FileInfo, error) { return os.Stat(p.abs(name)) }

func (p plainFS) Rename(from, to string) error {
	err := os.Rename(p.abs(from), p.abs(to))
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p.abs(to)), 0o755); err != nil {
			return err
		}
		err = os.Rename(p.abs(from), p.abs(to))
	}
	return err
}

func (p plainFS) Remove(name string) error { return os.Remove(p.abs(name)) }

func (p plainFS) Join(elem ...string) string { return filepath.Join(elem...) }

func (p plainFS) TempFile(dir, prefix string) (billy.File, error) {
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

func (p plainFS) ReadDir(name string) ([]os.FileInfo, error) {
	return osfs.Default.ReadDir(p.abs(name))
}

func (p plainFS) MkdirAll(name string, perm os.FileMode) error {
	return os.MkdirAll(p.abs(name), perm)
}

func (p plainFS) Lstat(name string) (os.FileInfo, error) { return os.Lstat(p.abs(name)) }

func (p plainFS) Symlink(target, link string) error { return os.Symlink(target, p.abs(link)) }

func (p plainFS) Readlink(link string) (string, error) { return os.Readlink(p.abs(link)) }

func (p plainFS) Chroot(name string) (billy.Filesystem, error) {
	return plainFS{root: p.abs(name)}, nil
}

func (p plainFS) Root() string { return p.root }

// Capabilities are those of the OS.
func (p plainFS) Capabilities() billy.Capability { return billy.Capabilities(osfs.Default) }

// Chmod lets go-git make loose objects read-only, as git does.
func (p plainFS) Chmod(name string, mode os.FileMode) error { return os.Chmod(p.abs(name), mode) }
