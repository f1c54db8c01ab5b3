package vault

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
)

// ModifyFile changes an existing file in place: change gets the file's
// current content, read under the write lock so no concurrent change is
// lost, and returns the new content, which is written and recorded as one
// change summarised by summary, given the file's vault-relative path
// (e.g. "patch notes/a.md"). When change returns the
// content unchanged nothing is written or recorded, and Written.Commit
// is "". An error from change leaves the file untouched.
func (v *Vault) ModifyFile(ctx context.Context, given string, summary func(rel string) string, change func(src []byte) ([]byte, error)) (Written, error) {
	var p Path
	var out []byte
	commit, err := v.Update(ctx, func(tx *Tx) (err error) {
		var fi fs.FileInfo
		if p, fi, err = v.statFile(ctx, given); err != nil {
			return v.expectMissing(ctx, given, err)
		}
		// Checked before reading: a change must not pull a huge file
		// into memory.
		if err := v.checkSize(given, "The file", fi.Size()); err != nil {
			return err
		}
		src, err := readRegular(p.Abs)
		if err != nil {
			return osError(given, err)
		}
		if err := checkExpected(ctx, p, src, true); err != nil {
			return err
		}
		if out, err = change(src); err != nil {
			return err
		}
		if bytes.Equal(out, src) {
			reportWritten(ctx, p, src)
			return nil
		}
		if err := v.checkSize(given, "The changed file", int64(len(out))); err != nil {
			return err
		}
		tx.Summarize("%s", summary(p.Rel))
		if err := tx.WriteFile(p, out); err != nil {
			return err
		}
		reportWritten(ctx, p, out)
		return nil
	})
	if err != nil {
		return Written{}, err
	}
	return Written{Path: p, Bytes: len(out), Commit: commit}, nil
}

// CreateFile writes a new file, refusing to replace one that exists
// (missing parent folders are created). The change is recorded with the
// summary made from the file's vault-relative path.
func (v *Vault) CreateFile(ctx context.Context, given string, summary func(rel string) string, data []byte) (Written, error) {
	if err := v.checkSize(given, "The content", int64(len(data))); err != nil {
		return Written{}, err
	}
	var p Path
	commit, err := v.Update(ctx, func(tx *Tx) (err error) {
		if p, err = v.ResolveFile(ctx, given); err != nil {
			return err
		}
		if err := checkExpected(ctx, p, nil, false); err != nil {
			return err
		}
		if _, err := os.Lstat(p.Abs); err == nil {
			return newError(ErrExists, given, "Already exists: %s", given)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return osError(given, err)
		}
		tx.Summarize("%s", summary(p.Rel))
		if err := tx.WriteFile(p, data); err != nil {
			return err
		}
		reportWritten(ctx, p, data)
		return nil
	})
	if err != nil {
		return Written{}, err
	}
	return Written{Path: p, Bytes: len(data), Commit: commit}, nil
}
