package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"vaultmcp/vault/edit"
)

// Written reports a completed change.
type Written struct {
	Path   Path   // the file as resolved (for renames, the new path)
	From   Path   // the old path of a rename
	Bytes  int    // size written, for write and edit
	Commit string // the recorder's commit id, "" if none was made
	// Created says a write made a new file; PrevBytes is the size the
	// file had before a write replaced or appended to it.
	Created   bool
	PrevBytes int
	// Unchanged says the file already held the content: nothing was
	// written or recorded.
	Unchanged bool
	// Form is set when an edit found old_text only in another Unicode
	// normalization form ("NFC" or "NFD"): the file's occurrence was
	// replaced and new_text written in that form.
	Form string
}

// ResolveFile resolves a client path that must name a file (existing or
// not): the empty path and the vault root are refused, and so is a path
// ctx's access scope hides.
func (v *Vault) ResolveFile(ctx context.Context, given string) (Path, error) {
	if given == "" {
		return Path{}, newError(ErrInvalidPath, given, "Path is required")
	}
	p, err := v.Resolve(given)
	if err != nil {
		return Path{}, err
	}
	if err := checkRead(ctx, given, p); err != nil {
		return Path{}, err
	}
	if p.IsRoot() {
		return Path{}, newError(ErrIsDir, given, "Is a directory, not a file: %s", displayDir(given))
	}
	if strings.HasSuffix(given, "/") {
		return Path{}, newError(ErrIsDir, given, "Path ends with / and so names a folder, not a file: %s", given)
	}
	return p, nil
}

// WriteFile creates or replaces the file at given with data.
//
// Every change resolves its paths under the write lock, where they are
// used: a pull holding the lock may have turned a folder into a symbolic
// link leading out of the vault meanwhile.
func (v *Vault) WriteFile(ctx context.Context, given string, data []byte) (Written, error) {
	return v.WriteFileMode(ctx, given, data, Overwrite)
}

// EditFile replaces the one occurrence of oldText in the file with
// newText. It fails, changing nothing, when oldText occurs zero or several
// times. On a file with CRLF line ends, LF in oldText and newText stands
// for CRLF, since clients send LF whatever the file holds.
func (v *Vault) EditFile(ctx context.Context, given, oldText, newText string) (Written, error) {
	if oldText == "" {
		return Written{}, newError(ErrInvalidInput, given, "old_text is empty: give the exact text to replace")
	}
	if err := v.checkSize(given, "new_text", int64(len(newText))); err != nil {
		return Written{}, err
	}
	var p Path
	var out []byte
	unchanged, before, form := false, 0, ""
	commit, err := v.Update(ctx, func(tx *Tx) (err error) {
		var fi fs.FileInfo
		if p, fi, err = v.statFile(ctx, given); err != nil {
			return v.expectMissing(ctx, given, err)
		}
		// Checked before reading: an edit must not pull a huge file
		// into memory.
		if err := v.checkSize(given, "The file", fi.Size()); err != nil {
			return err
		}
		tx.Summarize("edit %s", p.Rel)
		// Read under the write lock so a concurrent edit is not lost.
		src, err := readRegular(p.Abs)
		if err != nil {
			return osError(given, err)
		}
		if err := checkExpected(ctx, p, src, true); err != nil {
			return err
		}
		out, form, err = replaceOnce(given, src, oldText, newText)
		if err != nil {
			return err
		}
		if err := v.checkSize(given, "The edited file", int64(len(out))); err != nil {
			return err
		}
		before = len(src)
		if unchanged = bytes.Equal(src, out); unchanged {
			reportWritten(ctx, p, out)
			return nil // nothing to write or record
		}
		if err := tx.WriteFile(p, out); err != nil {
			return err
		}
		reportWritten(ctx, p, out)
		return nil
	})
	if err != nil {
		return Written{}, err
	}
	return Written{Path: p, Bytes: len(out), Commit: commit, PrevBytes: before, Unchanged: unchanged, Form: form}, nil
}

// replaceOnce is the text logic of EditFile. Matches are counted with
// overlaps ("aa" occurs twice in "aaa"): the client could not tell which
// one it meant. A file whose first line ends in CRLF is a CRLF file; LF in
// old_text and new_text then stands for CRLF, so the edit neither misses
// the text nor leaves mixed line ends behind. Text not found as given is
// looked for in its other Unicode normalization forms (an accent typed
// composed, stored decomposed); found so, new_text is written in the form
// that matched and form names it. A file read_file would show as binary
// is refused before anything is matched.
func replaceOnce(given string, src []byte, oldText, newText string) (out []byte, form string, err error) {
	if oldText == "" {
		return nil, "", newError(ErrInvalidInput, given, "old_text is empty: give the exact text to replace")
	}
	if edit.Binary(src) {
		return nil, "", binaryError(given)
	}
	crlf := usesCRLF(src)
	old, repl, n := locate(src, oldText, newText, crlf)
	if n == 0 {
		for _, f := range edit.OtherForms(oldText) {
			if o, r, k := locate(src, f.String(oldText), f.String(newText), crlf); k > 0 {
				old, repl, n, form = o, r, k, f.Name
				break
			}
		}
	}
	switch {
	case n == 0:
		msg := fmt.Sprintf("old_text not found in %s: it must match the file exactly, including whitespace and line breaks", given)
		if miss, ok := edit.FindNearMiss(src, oldText); ok {
			msg += "; " + miss.String()
		}
		return nil, "", newError(ErrNoMatch, given, "%s", msg)
	case n > 1:
		return nil, "", newError(ErrAmbiguous, given, "old_text matches %d times in %s: it must match exactly once; include more surrounding text to make it unique", countAll(src, old), given)
	}
	i := bytes.Index(src, old)
	out = make([]byte, 0, len(src)-len(old)+len(repl))
	out = append(out, src[:i]...)
	out = append(out, repl...)
	return append(out, src[i+len(old):]...), form, nil
}

// locate counts (up to 2) the occurrences of oldText in src, on a CRLF
// file trying it with CRLF line ends too, and returns the bytes found and
// the bytes to put in their place.
func locate(src []byte, oldText, newText string, crlf bool) (old, repl []byte, n int) {
	old, repl = []byte(oldText), []byte(newText)
	if crlf {
		repl = toCRLF(newText)
	}
	n = countUpTo2(src, old)
	if n == 0 && crlf && strings.Contains(oldText, "\n") {
		old = toCRLF(oldText)
		n = countUpTo2(src, old)
	}
	return old, repl, n
}

// binaryError refuses a text edit of a file that is not text.
func binaryError(given string) error {
	return newError(ErrInvalidInput, given, "%s", BinaryRefusal(given))
}

// BinaryRefusal is the message of every text edit refused because the
// file is binary (see edit.Binary).
func BinaryRefusal(given string) string {
	return given + " is a binary file (read_file shows no text of it); a text edit would corrupt it, so nothing was changed"
}

// countUpTo2 counts the (possibly overlapping) occurrences of sub in s,
// stopping at 2: all that replaceOnce needs to know.
func countUpTo2(s, sub []byte) int {
	i := bytes.Index(s, sub)
	if i < 0 {
		return 0
	}
	if bytes.Contains(s[i+1:], sub) {
		return 2
	}
	return 1
}

// countAll counts every occurrence of sub in s, overlapping ones too; for
// the error message only.
func countAll(s, sub []byte) int {
	n := 0
	for i := 0; ; n++ {
		j := bytes.Index(s[i:], sub)
		if j < 0 {
			return n
		}
		i += j + 1
	}
}

// usesCRLF reports whether the file's first line ends in CRLF.
func usesCRLF(src []byte) bool {
	i := bytes.IndexByte(src, '\n')
	return i > 0 && src[i-1] == '\r'
}

func toCRLF(s string) []byte {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return []byte(strings.ReplaceAll(s, "\n", "\r\n"))
}

// DeleteFile removes one file. Folders are refused.
func (v *Vault) DeleteFile(ctx context.Context, given string) (Written, error) {
	return v.DeleteFileWith(ctx, given, nil)
}

// DeleteFileWith is DeleteFile with a hook that runs under the write lock
// just before the file goes (the index counts the links it will break).
func (v *Vault) DeleteFileWith(ctx context.Context, given string, before func(p Path) error) (Written, error) {
	var p Path
	commit, err := v.Update(ctx, func(tx *Tx) (err error) {
		if p, err = v.statEntry(ctx, given); err != nil {
			return v.expectMissing(ctx, given, err)
		}
		if err := checkExpected(ctx, p, nil, false); err != nil {
			return err
		}
		tx.Summarize("delete %s", p.Rel)
		if before != nil {
			if err := before(p); err != nil {
				return err
			}
		}
		return tx.Remove(p)
	})
	if err != nil {
		return Written{}, err
	}
	return Written{Path: p, Commit: commit}, nil
}

// RenameFile moves a file, refusing to overwrite an existing target. A
// note (.md) renamed to a name without an extension is refused: it would
// silently stop being a note, which is never what "rename" means.
// extra, when not nil, runs inside the same change after the move (the
// index rewrites links there), so everything lands in one commit.
func (v *Vault) RenameFile(ctx context.Context, oldGiven, newGiven string, extra func(tx *Tx, from, to Path) error) (Written, error) {
	var from, to Path
	commit, err := v.Update(ctx, func(tx *Tx) (err error) {
		if from, err = v.statEntry(ctx, oldGiven); err != nil {
			return v.expectMissing(ctx, oldGiven, err)
		}
		if err := checkExpected(ctx, from, nil, false); err != nil {
			return err
		}
		if to, err = v.ResolveFile(ctx, newGiven); err != nil {
			return err
		}
		if IsNote(from.Rel) && !HasExtension(to.Rel) && !lexists(to.Abs) {
			return newError(ErrInvalidPath, newGiven, "Not renamed: %s is a note, and without an extension %s would stop being one (names without .md are not indexed, so its links, tags and properties would drop out). Rename it to %s instead; to make it a plain file, give the name an extension such as .txt",
				oldGiven, newGiven, newGiven+".md")
		}
		tx.Summarize("rename %s -> %s", from.Rel, to.Rel)
		if err := tx.Rename(from, to); err != nil {
			return err
		}
		if extra != nil {
			return extra(tx, from, to)
		}
		return nil
	})
	if err != nil {
		return Written{}, err
	}
	return Written{Path: to, From: from, Commit: commit}, nil
}

// lexists reports whether something is at abs (a final symlink is not
// followed).
func lexists(abs string) bool {
	_, err := os.Lstat(abs)
	return err == nil
}

// CreateDirectory creates a folder and its parents. An existing folder is
// fine; new names are checked as for WriteFile. Git does not track empty
// folders, so nothing is recorded.
func (v *Vault) CreateDirectory(ctx context.Context, given string) (Path, bool, error) {
	if given == "" {
		return Path{}, false, newError(ErrInvalidPath, given, "Path is required")
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	p, err := v.Resolve(given)
	if err != nil {
		return Path{}, false, err
	}
	if err := checkWrite(ctx, given, p); err != nil {
		return Path{}, false, err
	}
	fi, err := os.Stat(p.Abs)
	if err == nil {
		if !fi.IsDir() {
			return Path{}, false, newError(ErrExists, given, "A file already exists at %s", given)
		}
		return p, false, nil
	}
	for d := path.Dir(p.Rel); d != "." && d != ""; d = path.Dir(d) {
		if fi, err := os.Stat(v.abs(d)); err == nil {
			if !fi.IsDir() {
				return Path{}, false, newError(ErrNotDir, given, "Cannot create %s: %s is a file, not a folder", given, d)
			}
			break
		}
	}
	if err := v.checkNew(given, p.Rel, ""); err != nil {
		return Path{}, false, err
	}
	if err := v.CheckRoot(); err != nil {
		return Path{}, false, err // MkdirAll would recreate it, empty
	}
	if err := os.MkdirAll(p.Abs, 0o755); err != nil {
		return Path{}, false, osError(given, err)
	}
	return p, true, nil
}

// File is a file read from the vault.
type File struct {
	Path      Path
	Size      int64
	ModTime   time.Time
	Data      []byte // at most the limit given to ReadFile
	Truncated bool   // Data holds only the first part of the file
}

// ReadFile reads the file at given, at most limit bytes of it (limit <= 0
// means no limit), if ctx's access scope lets the client see it.
func (v *Vault) ReadFile(ctx context.Context, given string, limit int64) (File, error) {
	p, _, err := v.statFile(ctx, given)
	if err != nil {
		return File{}, v.explain(err)
	}
	f, fi, err := OpenRegular(p.Abs)
	if err != nil {
		return File{}, osError(given, err)
	}
	defer f.Close()
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return File{}, osError(given, err)
	}
	return File{
		Path:      p,
		Size:      fi.Size(),
		ModTime:   fi.ModTime(),
		Data:      data,
		Truncated: limit > 0 && fi.Size() > int64(len(data)),
	}, nil
}

// readRegular reads the whole regular file at abs; anything else is
// refused without being read.
func readRegular(abs string) ([]byte, error) {
	f, fi, err := OpenRegular(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	_, err = buf.ReadFrom(f)
	return buf.Bytes(), err
}

// Stat resolves given under ctx's access scope and returns its file info.
func (v *Vault) Stat(ctx context.Context, given string) (Path, fs.FileInfo, error) {
	p, err := v.ResolveFor(ctx, given)
	if err != nil {
		return Path{}, nil, err
	}
	fi, err := os.Stat(p.Abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Path{}, nil, v.explain(newError(ErrNotFound, given, "Not found: %s", given))
		}
		return Path{}, nil, osError(given, err)
	}
	return p, fi, nil
}
