package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"vaultmcp/vault/access"
)

// Entry is one file or folder in a listing.
type Entry struct {
	Rel     string // vault-relative path
	Name    string
	IsDir   bool
	Depth   int // 1 for direct children of the listed folder
	Size    int64
	ModTime time.Time
}

// ErrStop may be returned by a Walk callback to end the walk early
// without an error.
var ErrStop = errors.New("stop walking")

// Walk calls fn for every file and folder under dir (a resolved Path),
// in lexical order, leaving out hidden and skipped folders, the vault's
// temporary files and special files (FIFOs, sockets, devices). Symbolic links are reported but never followed, so a
// walk cannot leave the vault or loop. fn may return fs.SkipDir for a
// folder, or ErrStop to end the walk.
func (v *Vault) Walk(dir Path, fn func(rel string, d fs.DirEntry) error) error {
	err := filepath.WalkDir(dir.Abs, func(abs string, d fs.DirEntry, err error) error {
		if abs == dir.Abs {
			if err != nil {
				return osError(dir.Given, err)
			}
			return nil
		}
		// A file may carry a hidden name too (a submodule's ".git" file):
		// Resolve refuses it, so a scan must not report it either.
		if v.Skipped(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err != nil {
			// An unreadable folder inside the vault should not end a
			// vault-wide scan.
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if IsSpecial(d.Type()) {
			return nil // a FIFO, socket or device: never reported, never opened
		}
		rel, ok := v.relInside(abs)
		if !ok {
			return nil
		}
		return fn(rel, d)
	})
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// List returns the entries under given, down to maxDepth levels (1 = only
// direct children), folders and files sorted together by name, each
// folder's content right after it. Hidden and skipped folders, special
// files (FIFOs, sockets, devices) and whatever ctx's access scope hides
// are left out.
func (v *Vault) List(ctx context.Context, given string, maxDepth int) ([]Entry, error) {
	p, err := v.Resolve(given)
	if err != nil {
		return nil, err
	}
	scope := access.From(ctx)
	var fv *folderView
	if scope.Hides() {
		// Refused before looking, so a hidden path answers the same
		// whether it exists, is a file or is a folder.
		fv = v.folders(scope)
		if err := v.checkFor(ctx, given, p, fv); err != nil {
			return nil, err
		}
	}
	fi, err := os.Stat(p.Abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, v.explain(newError(ErrNotFound, given, "Directory not found: %s", given))
		}
		return nil, osError(given, err)
	}
	if !fi.IsDir() {
		return nil, newError(ErrNotDir, given, "Not a directory: %s (use read_file for files)", given)
	}
	if maxDepth < 1 {
		maxDepth = 1
	}
	var out []Entry
	if err := v.list(scope, fv, p.Abs, p.Rel, 1, maxDepth, &out); err != nil {
		return nil, osError(given, err)
	}
	return out, nil
}

// list appends the entries under abs; fv, set when scope hides paths,
// decides which folders show.
func (v *Vault) list(scope *access.Scope, fv *folderView, abs, rel string, depth, maxDepth int, out *[]Entry) error {
	entries, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return CompareNames(a.Name(), b.Name()) })
	for _, e := range entries {
		name := e.Name()
		if v.Skipped(name) || IsSpecial(e.Type()) {
			continue
		}
		childAbs := filepath.Join(abs, name)
		childRel := path.Join(rel, name)
		isDir := e.IsDir()
		var size int64
		var mod time.Time
		if e.Type()&fs.ModeSymlink != 0 {
			// A link to a folder inside the vault lists as a folder. One
			// leading out, nowhere, or where scans do not look (.git) is
			// left out entirely, and so is one whose target the scope
			// hides: it would show that target under the link's name.
			target, fi, ok := v.followLink(childRel, childAbs)
			if !ok {
				continue
			}
			isDir = fi.IsDir()
			if isDir && fv != nil && !fv.shown(target.Abs, target.Rel) || !isDir && !scope.Visible(target.Rel) {
				continue
			}
			size, mod = fi.Size(), fi.ModTime()
		} else if fi, err := e.Info(); err == nil {
			isDir = fi.IsDir()
			size, mod = fi.Size(), fi.ModTime()
		}
		if isDir && fv != nil && !fv.shown(childAbs, childRel) || !isDir && !scope.Visible(childRel) {
			continue
		}
		*out = append(*out, Entry{Rel: childRel, Name: name, IsDir: isDir, Depth: depth, Size: size, ModTime: mod})
		if isDir && depth < maxDepth && e.Type()&fs.ModeSymlink == 0 {
			if err := v.list(scope, fv, childAbs, childRel, depth+1, maxDepth, out); err != nil && !errors.Is(err, fs.ErrPermission) {
				return err
			}
		}
	}
	return nil
}
