package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"vaultmcp/vault/access"
)

// Tx is one change in progress. Every file operation it performs is
// undoable until the change is recorded; see Vault.Update.
type Tx struct {
	v       *Vault
	scope   *access.Scope // the request's; every path changed must be in it
	summary string
	touched []string
	undo    []func() error
}

// Summarize sets the history message of the change, e.g.
// "write notes/daily.md".
func (tx *Tx) Summarize(format string, args ...any) {
	tx.summary = fmt.Sprintf(format, args...)
}

func (tx *Tx) touch(rel string) {
	if !slices.Contains(tx.touched, rel) {
		tx.touched = append(tx.touched, rel)
	}
}

// WriteFile replaces p's content atomically, keeping its mode, creating
// missing parent folders.
func (tx *Tx) WriteFile(p Path, data []byte) error {
	if err := tx.allowed(p); err != nil {
		return err
	}
	if p.IsRoot() {
		return newError(ErrIsDir, p.Given, "Is a directory, not a file: %s", displayDir(p.Given))
	}
	perm := fs.FileMode(0o644)
	old, err := os.Lstat(p.Abs)
	switch {
	case err == nil:
		if old.IsDir() {
			return newError(ErrIsDir, p.Given, "Is a directory, not a file: %s", p.Given)
		}
		if !old.Mode().IsRegular() {
			return newError(ErrInvalidInput, p.Given, "Not a regular file: %s", p.Given)
		}
		perm = old.Mode().Perm()
		prev, err := os.ReadFile(p.Abs)
		if err != nil {
			return osError(p.Given, err)
		}
		tx.undo = append(tx.undo, func() error { return writeAtomic(p.Abs, prev, perm) })
	case errors.Is(err, fs.ErrNotExist):
		if err := tx.mkdirAll(p, path.Dir(p.Rel)); err != nil {
			return err
		}
		tx.undo = append(tx.undo, func() error { return removeIfExists(p.Abs) })
	default:
		return osError(p.Given, err)
	}
	if err := writeAtomic(p.Abs, data, perm); err != nil {
		return osError(p.Given, err)
	}
	tx.touch(p.Rel)
	return nil
}

// Remove deletes the regular file p.
func (tx *Tx) Remove(p Path) error {
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
	prev, err := os.ReadFile(p.Abs)
	if err != nil {
		return osError(p.Given, err)
	}
	perm := fi.Mode().Perm()
	if err := os.Remove(p.Abs); err != nil {
		return osError(p.Given, err)
	}
	tx.undo = append(tx.undo, func() error { return writeAtomic(p.Abs, prev, perm) })
	tx.touch(p.Rel)
	return nil
}

// Rename moves the file from to the path to, which must not exist yet;
// missing parent folders of to are created.
func (tx *Tx) Rename(from, to Path) error {
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
	return nil
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
	tx.touched = nil
	if len(errs) > 0 {
		// Rollback errors carry absolute paths; say what happened without them.
		return fmt.Errorf("rolling back failed for %d file(s); check the vault with git status", len(errs))
	}
	return nil
}

func (tx *Tx) finish() { tx.undo = nil }

func removeIfExists(abs string) error {
	err := os.Remove(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeAtomic replaces abs with data so that readers see the old or the new
// content, never a mix: a temporary file in the same folder is written,
// synced and renamed over the target.
func writeAtomic(abs string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(abs)
	f, err := os.CreateTemp(dir, tempPrefix+base+"-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, abs)
}
