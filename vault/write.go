package vault

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
)

// WriteMode says what a write does with a file that already exists.
type WriteMode int

const (
	// Overwrite creates the file or replaces its content.
	Overwrite WriteMode = iota
	// CreateOnly creates the file and fails if it exists.
	CreateOnly
	// Append adds to the end of the file, creating it when missing.
	Append
)

// WriteFileMode writes data to the file at given as mode says. Content
// equal to what the file already holds is not written, and no change is
// recorded (Written.Unchanged). Appending starts on a new line and, on a
// file with CRLF line ends, writes CRLF, as EditFile does.
func (v *Vault) WriteFileMode(ctx context.Context, given string, data []byte, mode WriteMode) (Written, error) {
	if err := v.checkSize(given, "The content", int64(len(data))); err != nil {
		return Written{}, err
	}
	var w Written
	commit, err := v.Update(ctx, func(tx *Tx) (err error) {
		if w.Path, err = v.ResolveFile(ctx, given); err != nil {
			return err
		}
		fi, exists, err := statExisting(w.Path)
		if err != nil {
			return err
		}
		if exists && mode == CreateOnly {
			return newError(ErrExists, given, "File already exists: %s (mode create never replaces a file)", given)
		}
		var prev []byte
		read := false
		_, conditional := ExpectedVersion(ctx)
		// The old content is read only to append to it, to compare it
		// with data of the same size or with the version the client
		// expects, and never past the write cap.
		if exists && (mode == Append || conditional || fi.Size() == int64(len(data))) {
			if err := v.checkSize(given, "The file", fi.Size()); err != nil {
				return err
			}
			if prev, err = readRegular(w.Path.Abs); err != nil {
				return osError(given, err)
			}
			read = true
		}
		if err := checkExpected(ctx, w.Path, prev, read); err != nil {
			return err
		}
		verb := "write"
		if exists && mode == Append {
			data = appendText(prev, data)
			verb = "append"
			if err := v.checkSize(given, "The appended file", int64(len(data))); err != nil {
				return err
			}
		}
		w.Created, w.Bytes = !exists, len(data)
		if exists {
			w.PrevBytes = int(fi.Size())
		}
		if read && bytes.Equal(prev, data) {
			w.Unchanged = true
			reportWritten(ctx, w.Path, data)
			return nil
		}
		tx.Summarize("%s %s", verb, w.Path.Rel)
		if err := tx.WriteFile(w.Path, data); err != nil {
			return err
		}
		reportWritten(ctx, w.Path, data)
		return nil
	})
	if err != nil {
		return Written{}, err
	}
	w.Commit = commit
	return w, nil
}

// statExisting reports whether the regular file p exists, with its info.
// A folder or a special file is an error, as Tx.WriteFile would find.
func statExisting(p Path) (fi fs.FileInfo, exists bool, err error) {
	fi, err = os.Lstat(p.Abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		if isNotDir(err) {
			return nil, false, nil // Tx.WriteFile names the file in the way
		}
		return nil, false, osError(p.Given, err)
	case fi.IsDir():
		return nil, false, newError(ErrIsDir, p.Given, "Is a directory, not a file: %s", displayDir(p.Given))
	case !fi.Mode().IsRegular():
		return nil, false, notRegularError(p.Given, fi.Mode())
	}
	return fi, true, nil
}

// appendText is prev with add after it, on a line of its own.
func appendText(prev, add []byte) []byte {
	crlf := usesCRLF(prev)
	if crlf {
		add = toCRLF(string(add))
	}
	out := make([]byte, 0, len(prev)+len(add)+2)
	out = append(out, prev...)
	if len(prev) > 0 && prev[len(prev)-1] != '\n' && len(add) > 0 {
		if crlf {
			out = append(out, '\r')
		}
		out = append(out, '\n')
	}
	return append(out, add...)
}
