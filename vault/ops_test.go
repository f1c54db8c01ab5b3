package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/vault/changes"
)

func TestWriteFile(t *testing.T) {
	v, root := newTestVault(t, Options{})
	ctx := t.Context()

	w, err := v.WriteFile(ctx, "a/b/c/note.md", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if w.Path.Rel != "a/b/c/note.md" || w.Bytes != 5 {
		t.Errorf("Written = %+v", w)
	}
	if got := readRel(t, root, "a/b/c/note.md"); got != "hello" {
		t.Errorf("content = %q", got)
	}
	fi, err := os.Stat(filepath.Join(root, "a/b/c/note.md"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode = %v, want 0644", fi.Mode().Perm())
	}

	// Overwrite keeps the mode.
	abs := filepath.Join(root, "private.md")
	if err := os.WriteFile(abs, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(abs, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := v.WriteFile(ctx, "private.md", []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err = os.Stat(abs)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after overwrite = %v, want 0600", fi.Mode().Perm())
	}
	if got := readRel(t, root, "private.md"); got != "new" {
		t.Errorf("content = %q", got)
	}
	// No temporary files are left behind, once the backups removed in
	// the background are gone.
	v.dropping.Wait()
	for _, dir := range []string{".", "a/b/c"} {
		entries, _ := os.ReadDir(filepath.Join(root, dir))
		for _, e := range entries {
			if IsTemp(e.Name()) {
				t.Errorf("temporary file left: %s/%s", dir, e.Name())
			}
		}
	}
	// Writing through a symlink inside the vault changes the real file and
	// keeps the link.
	symlink(t, root, "alias.md", "private.md")
	if _, err := v.WriteFile(ctx, "alias.md", []byte("via link")); err != nil {
		t.Fatal(err)
	}
	if got := readRel(t, root, "private.md"); got != "via link" {
		t.Errorf("target content = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(root, "alias.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("alias.md is no longer a symlink")
	}
}

func TestWriteFileRefused(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "file.md", "i am a file")
	mkdir(t, root, "folder")
	outside := t.TempDir()
	symlink(t, root, "out", outside)
	ctx := t.Context()
	tests := []struct {
		given string
		kind  error
		want  string // part of the message
	}{
		{"file.md/x.md", ErrNotDir, "is a file"},
		{"file.md/deeper/x.md", ErrNotDir, "is a file"},
		{"folder", ErrIsDir, "Is a directory"},
		{"", ErrInvalidPath, "required"},
		{"/", ErrIsDir, "vault root"},
		{"../x.md", ErrOutside, "outside"},
		{"/etc/passwd", ErrOutside, "outside"},
		{"out/new.md", ErrOutside, "outside"},
		{".git/config", ErrHidden, ".git"},
		{"notes/.claude/x", ErrHidden, ".claude"},
		{"a\x00.md", ErrInvalidPath, "NUL"},
	}
	for _, tt := range tests {
		v.dropping.Wait() // earlier changes' backups are removed in the background
		before := snapshot(t, root)
		_, err := v.WriteFile(ctx, tt.given, []byte("x"))
		checkClientError(t, err, tt.kind, tt.given, root, outside)
		if err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("WriteFile(%q) = %q, want it to mention %q", tt.given, err, tt.want)
		}
		sameSnapshot(t, before, snapshot(t, root))
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Errorf("WriteFile(%q) created files outside the vault", tt.given)
		}
	}
}

func TestEditFile(t *testing.T) {
	v, root := newTestVault(t, Options{})
	ctx := t.Context()
	mkfile(t, root, "n.md", "one two three two")
	mkfile(t, root, "crlf.md", "# Title\r\nfirst line\r\nsecond line\r\n")
	mkfile(t, root, "aaa.md", "aaa")

	if _, err := v.EditFile(ctx, "n.md", "one", "1"); err != nil {
		t.Fatal(err)
	}
	if got := readRel(t, root, "n.md"); got != "1 two three two" {
		t.Errorf("after edit: %q", got)
	}

	tests := []struct {
		name, given, old string
		kind             error
		want             string
	}{
		{"no match", "n.md", "four", ErrNoMatch, "not found"},
		{"two matches", "n.md", "two", ErrAmbiguous, "matches 2 times"},
		{"overlapping matches", "aaa.md", "aa", ErrAmbiguous, "matches 2 times"},
		{"empty old_text", "n.md", "", ErrInvalidInput, "old_text is empty"},
		{"missing file", "nope.md", "x", ErrNotFound, "File not found: nope.md"},
		{"folder", "/", "x", ErrIsDir, "vault root"},
		{"hidden", ".git/config", "x", ErrHidden, ".git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v.dropping.Wait() // earlier changes' backups are removed in the background
			before := snapshot(t, root)
			_, err := v.EditFile(ctx, tt.given, tt.old, "y")
			checkClientError(t, err, tt.kind, tt.given, root)
			if err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("EditFile = %q, want it to mention %q", err, tt.want)
			}
			sameSnapshot(t, before, snapshot(t, root))
		})
	}

	// LF old_text finds CRLF text; LF in new_text becomes CRLF.
	if _, err := v.EditFile(ctx, "crlf.md", "first line\nsecond line\n", "first line\nmiddle\nsecond line\n"); err != nil {
		t.Fatal(err)
	}
	want := "# Title\r\nfirst line\r\nmiddle\r\nsecond line\r\n"
	if got := readRel(t, root, "crlf.md"); got != want {
		t.Errorf("CRLF edit: %q, want %q", got, want)
	}
	// A single-line old_text on a CRLF file still writes CRLF for the new
	// lines it adds.
	if _, err := v.EditFile(ctx, "crlf.md", "middle", "middle\nmore"); err != nil {
		t.Fatal(err)
	}
	want = "# Title\r\nfirst line\r\nmiddle\r\nmore\r\nsecond line\r\n"
	if got := readRel(t, root, "crlf.md"); got != want {
		t.Errorf("CRLF edit with one-line old_text: %q, want %q", got, want)
	}
}

func TestReplaceOnce(t *testing.T) {
	tests := []struct {
		src, old, repl string
		want           string
		kind           error
		form           string // the form old_text was found in, when not as given
		says           string // in the error message
	}{
		{"abc", "b", "B", "aBc", nil, "", ""},
		{"abc", "abc", "", "", nil, "", ""},
		{"abc", "x", "y", "", ErrNoMatch, "", ""},
		{"abab", "ab", "x", "", ErrAmbiguous, "", ""},
		{"aaa", "aa", "b", "", ErrAmbiguous, "", ""},
		{"a\r\nb\r\n", "a\nb", "c\nd", "c\r\nd\r\n", nil, "", ""},
		{"a\r\nb\r\n", "a\r\nb", "c\r\nd", "c\r\nd\r\n", nil, "", ""},
		{"a\r\nb\r\n", "b", "b\nc", "a\r\nb\r\nc\r\n", nil, "", ""},
		{"a\nb\n", "a\nb", "c\nd", "c\nd\n", nil, "", ""},
		{"a\nb\n", "b", "b\r\nc", "a\nb\r\nc\n", nil, "", ""}, // an LF file is left as the client writes
		{"x\r\ny\r\nx\r\ny\r\n", "x\ny", "z", "", ErrAmbiguous, "", ""},
		// Binary files are refused, whatever matches.
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "PNG", "JPG", "", ErrInvalidInput, "", "binary file"},
		{"caf\xe9 cr\xe8me", "caf", "x", "", ErrInvalidInput, "", "binary file"},
		// Composed old_text finds decomposed text; new_text follows the file.
		{"Le cafe\u0301 e\u0301tait tre\u0300s bon.\n", "Le café était très bon.", "Le thé était bon.", "Le the\u0301 e\u0301tait bon.\n", nil, "NFD", ""},
		{"Le café était.\n", "cafe\u0301", "thé", "Le thé était.\n", nil, "NFC", ""},
		{"cafe\u0301 café", "café", "x", "cafe\u0301 x", nil, "", ""}, // the exact match wins
		// Not found: the near miss is named.
		{"a\nThe Quick Fox\n", "the quick fox", "x", "", ErrNoMatch, "", "at line 2 differs from old_text only in letter case; line 2 reads \"The Quick Fox\""},
		{"a\nb\n  - item one  \n  - item two\n", "- item one\n- item two", "x", "", ErrNoMatch, "", "at lines 3-4 differs from old_text only in whitespace"},
		{"x\ncafe\u0301 Cre\u0300me\n", "café crème", "x", "", ErrNoMatch, "", "at line 2 differs from old_text only in letter case and Unicode form"},
		{"abc\n", "xyz", "x", "", ErrNoMatch, "", "including whitespace and line breaks"},
	}
	for _, tt := range tests {
		got, form, err := replaceOnce("f.md", []byte(tt.src), tt.old, tt.repl)
		if form != tt.form {
			t.Errorf("replaceOnce(%q, %q) form = %q, want %q", tt.src, tt.old, form, tt.form)
		}
		if tt.kind != nil {
			if !errors.Is(err, tt.kind) {
				t.Errorf("replaceOnce(%q, %q) error = %v, want %v", tt.src, tt.old, err, tt.kind)
			}
			if err != nil && !strings.Contains(err.Error(), tt.says) {
				t.Errorf("replaceOnce(%q, %q) error = %q, want it to say %q", tt.src, tt.old, err, tt.says)
			}
			continue
		}
		if err != nil {
			t.Errorf("replaceOnce(%q, %q): %v", tt.src, tt.old, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("replaceOnce(%q, %q, %q) = %q, want %q", tt.src, tt.old, tt.repl, got, tt.want)
		}
	}
}

func TestDeleteFile(t *testing.T) {
	v, root := newTestVault(t, Options{})
	ctx := t.Context()
	mkfile(t, root, "notes/a.md", "a")
	mkdir(t, root, "empty")

	for _, given := range []string{"notes", "empty", "/", "nope.md", "../x", ".git/HEAD"} {
		v.dropping.Wait() // earlier changes' backups are removed in the background
		before := snapshot(t, root)
		_, err := v.DeleteFile(ctx, given)
		checkClientError(t, err, nil, given, root)
		sameSnapshot(t, before, snapshot(t, root))
	}
	_, err := v.DeleteFile(ctx, "notes")
	if !errors.Is(err, ErrIsDir) {
		t.Errorf("delete of a folder: %v, want ErrIsDir", err)
	}
	if _, err := v.DeleteFile(ctx, "notes/a.md"); err != nil {
		t.Fatal(err)
	}
	if exists(root, "notes/a.md") {
		t.Error("file still there")
	}
	if !exists(root, "notes") {
		t.Error("the now empty folder was removed too")
	}
}

func TestRenameFile(t *testing.T) {
	v, root := newTestVault(t, Options{})
	ctx := t.Context()
	mkfile(t, root, "a.md", "a")
	mkfile(t, root, "b.md", "b")
	mkdir(t, root, "folder")

	tests := []struct {
		from, to string
		kind     error
		want     string
	}{
		{"a.md", "b.md", ErrExists, "Target already exists: b.md"},
		{"a.md", "a.md", ErrInvalidInput, "same file"},
		{"a.md", "folder", ErrExists, "folder"},
		{"folder", "x", ErrIsDir, "Is a directory"},
		{"nope.md", "x.md", ErrNotFound, "nope.md"},
		{"a.md", "../x.md", ErrOutside, "outside"},
		{"a.md", ".git/x.md", ErrHidden, ".git"},
		{"a.md", "b.md/x.md", ErrNotDir, "is a file"},
		{"a.md", "/", ErrIsDir, "vault root"},
		{"a.md", "", ErrInvalidPath, "required"},
	}
	for _, tt := range tests {
		v.dropping.Wait() // earlier changes' backups are removed in the background
		before := snapshot(t, root)
		_, err := v.RenameFile(ctx, tt.from, tt.to, nil)
		checkClientError(t, err, tt.kind, tt.from+" -> "+tt.to, root)
		if err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("RenameFile(%q, %q) = %q, want it to mention %q", tt.from, tt.to, err, tt.want)
		}
		sameSnapshot(t, before, snapshot(t, root))
	}

	w, err := v.RenameFile(ctx, "a.md", "new/deep/a2.md", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.From.Rel != "a.md" || w.Path.Rel != "new/deep/a2.md" {
		t.Errorf("Written = %+v", w)
	}
	if exists(root, "a.md") || readRel(t, root, "new/deep/a2.md") != "a" {
		t.Error("file not moved")
	}
	// A case-only rename is not an overwrite.
	if _, err := v.RenameFile(ctx, "b.md", "B.md", nil); err != nil {
		t.Errorf("case-only rename: %v", err)
	}
}

func TestCreateDirectory(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "file.md", "f")

	p, created, err := v.CreateDirectory(context.Background(), "x/y/z")
	if err != nil || !created || p.Rel != "x/y/z" {
		t.Fatalf("CreateDirectory = %+v, %v, %v", p, created, err)
	}
	if fi, err := os.Stat(filepath.Join(root, "x/y/z")); err != nil || !fi.IsDir() {
		t.Fatal("folder not created")
	}
	if _, created, err := v.CreateDirectory(context.Background(), "x/y"); err != nil || created {
		t.Errorf("existing folder: created=%v err=%v", created, err)
	}
	for _, tt := range []struct {
		given string
		kind  error
	}{
		{"file.md", ErrExists},
		{"file.md/sub", ErrNotDir},
		{"", ErrInvalidPath},
		{".git/hooks", ErrHidden},
		{"../up", ErrOutside},
	} {
		v.dropping.Wait() // earlier changes' backups are removed in the background
		before := snapshot(t, root)
		_, _, err := v.CreateDirectory(context.Background(), tt.given)
		checkClientError(t, err, tt.kind, tt.given, root)
		sameSnapshot(t, before, snapshot(t, root))
	}
}

func TestReadFile(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "n.md", "0123456789")
	f, err := v.ReadFile(context.Background(), "n.md", 0)
	if err != nil || string(f.Data) != "0123456789" || f.Truncated || f.Size != 10 {
		t.Fatalf("ReadFile = %+v, %v", f, err)
	}
	f, err = v.ReadFile(context.Background(), "n.md", 4)
	if err != nil || string(f.Data) != "0123" || !f.Truncated || f.Size != 10 {
		t.Fatalf("ReadFile(limit 4) = %+v, %v", f, err)
	}
	f, err = v.ReadFile(context.Background(), "n.md", 10)
	if err != nil || f.Truncated {
		t.Fatalf("ReadFile(limit = size) = %+v, %v", f, err)
	}
	for _, tt := range []struct {
		given string
		kind  error
	}{
		{"", ErrInvalidPath},
		{"/", ErrIsDir},
		{"missing.md", ErrNotFound},
		{".git/config", ErrHidden},
		{"n.md/x", ErrNotDir},
	} {
		_, err := v.ReadFile(context.Background(), tt.given, 0)
		checkClientError(t, err, tt.kind, tt.given, root)
	}
}

// failingRecorder fails every Record and counts the calls.
type failingRecorder struct{ calls int }

func (r *failingRecorder) Record(_ context.Context, _ string, _ []string) (string, error) {
	r.calls++
	return "", errors.New("disk on fire at " + "/srv/secret/repo")
}

// Prepare fails at Publish, once the files are in place, as a commit
// whose ref could not be moved does.
func (r *failingRecorder) Prepare(ctx context.Context, c changes.Change) (changes.Pending, error) {
	return publishing(ctx, c, r.Record)
}

var _ changes.Recorder = (*failingRecorder)(nil)

// failingPreparer fails in Prepare, before the change's last written
// file is put into place, as a commit whose objects could not be written
// does.
type failingPreparer struct{ failingRecorder }

func (r *failingPreparer) Prepare(ctx context.Context, c changes.Change) (changes.Pending, error) {
	_, err := r.Record(ctx, c.Summary, c.Paths)
	return nil, err
}

// Every change whose recording fails is undone: the vault is byte-
// identical afterwards and observers hear nothing.
func TestRollbackOnRecordFailure(t *testing.T) {
	tests := []struct {
		name string
		op   func(v *Vault) error
	}{
		{"write new file with new folders", func(v *Vault) error {
			_, err := v.WriteFile(t.Context(), "new/a/b/note.md", []byte("x"))
			return err
		}},
		{"write new file", func(v *Vault) error {
			_, err := v.WriteFile(t.Context(), "notes/fresh.md", []byte("x"))
			return err
		}},
		{"overwrite", func(v *Vault) error {
			_, err := v.WriteFile(t.Context(), "notes/private.md", []byte("replaced"))
			return err
		}},
		{"edit", func(v *Vault) error {
			_, err := v.EditFile(t.Context(), "notes/a.md", "alpha", "omega")
			return err
		}},
		{"delete", func(v *Vault) error {
			_, err := v.DeleteFile(t.Context(), "notes/private.md")
			return err
		}},
		{"delete last file of a folder", func(v *Vault) error {
			_, err := v.DeleteFile(t.Context(), "solo/only.md")
			return err
		}},
		{"rename", func(v *Vault) error {
			_, err := v.RenameFile(t.Context(), "notes/a.md", "notes/b.md", nil)
			return err
		}},
		{"rename into new folders", func(v *Vault) error {
			_, err := v.RenameFile(t.Context(), "notes/private.md", "archive/2026/01/private.md", nil)
			return err
		}},
		{"rename with extra write", func(v *Vault) error {
			_, err := v.RenameFile(t.Context(), "notes/a.md", "moved/a.md", func(tx *Tx, from, to Path) error {
				p, err := v.Resolve("notes/private.md")
				if err != nil {
					return err
				}
				return tx.WriteFile(p, []byte("links rewritten"))
			})
			return err
		}},
		{"rename with a batch of writes", func(v *Vault) error {
			_, err := v.RenameFile(t.Context(), "notes/a.md", "moved/a.md", func(tx *Tx, from, to Path) error {
				var batch []FileWrite
				for _, rel := range []string{"notes/private.md", "solo/only.md", "solo/new.md", "fresh/dir/new.md"} {
					p, err := v.Resolve(rel)
					if err != nil {
						return err
					}
					batch = append(batch, FileWrite{Path: p, Data: []byte("links rewritten in " + rel)})
				}
				return discardInfos(tx.WriteFiles(batch))
			})
			return err
		}},
		// Large enough for one flush barrier (minBarrierBatch) and for
		// its backups to be removed in the background once recorded.
		{"rename with a large batch of writes", func(v *Vault) error {
			return renameRewritingBulk(t.Context(), v, "links rewritten")
		}},
	}
	recorders := []struct {
		name string
		make func() (changes.Recorder, *failingRecorder)
	}{
		// The change's last write is put into place between the two
		// phases: the recorder fails after it was, or before.
		{"", func() (changes.Recorder, *failingRecorder) { r := &failingRecorder{}; return r, r }},
		{" placing", func() (changes.Recorder, *failingRecorder) { r := &failingPreparer{}; return r, &r.failingRecorder }},
	}
	for _, tt := range tests {
		for _, rc := range recorders {
			t.Run(tt.name+rc.name, func(t *testing.T) {
				v, root := newTestVault(t, Options{})
				mkfile(t, root, "notes/a.md", "alpha\nbeta\n")
				for i := range minBarrierBatch + 4 {
					mkfile(t, root, fmt.Sprintf("bulk/b%02d.md", i), "[[a]]")
				}
				mkfile(t, root, "notes/private.md", "secret")
				if err := os.Chmod(filepath.Join(root, "notes/private.md"), 0o600); err != nil {
					t.Fatal(err)
				}
				mkfile(t, root, "solo/only.md", "only")
				r, rec := rc.make()
				v.SetRecorder(r)
				observed := 0
				v.Observe(func(changes.Batch) { observed++ })

				v.dropping.Wait() // earlier changes' backups are removed in the background
				before := snapshot(t, root)
				err := tt.op(v)
				if err == nil {
					t.Fatal("no error although the recorder failed")
				}
				if rec.calls != 1 {
					t.Errorf("recorder called %d times", rec.calls)
				}
				if !strings.Contains(err.Error(), "undone") {
					t.Errorf("error %q does not say the change was undone", err)
				}
				noAbsPath(t, err.Error(), "", root)
				sameSnapshot(t, before, snapshot(t, root))
				if observed != 0 {
					t.Errorf("observers called %d times", observed)
				}
			})
		}
	}
}

// A failure inside the change itself (not the recorder) also undoes what
// was done before it.
func TestRollbackOnTxFailure(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "a.md", "a")
	mkfile(t, root, "taken.md", "taken")
	v.dropping.Wait() // earlier changes' backups are removed in the background
	before := snapshot(t, root)
	_, err := v.Update(t.Context(), func(tx *Tx) error {
		p, err := v.Resolve("new/dir/x.md")
		if err != nil {
			return err
		}
		if err := tx.WriteFile(p, []byte("x")); err != nil {
			return err
		}
		from, _ := v.Resolve("a.md")
		to, _ := v.Resolve("taken.md")
		return tx.Rename(from, to)
	})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("err = %v, want ErrExists", err)
	}
	sameSnapshot(t, before, snapshot(t, root))
}

func TestRecorderSuccess(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "notes/a.md", "alpha")
	type call struct {
		summary string
		paths   []string
	}
	var calls []call
	v.SetRecorder(recorderFunc(func(summary string, paths []string) (string, error) {
		calls = append(calls, call{summary, slices.Clone(paths)})
		return "abc1234", nil
	}))
	var observed [][]string
	v.Observe(func(b changes.Batch) { observed = append(observed, slices.Clone(b.Paths)) })

	ctx := t.Context()
	steps := []struct {
		run     func() (Written, error)
		summary string
		paths   []string
	}{
		{func() (Written, error) { return v.WriteFile(ctx, "notes/b.md", []byte("beta")) }, "write notes/b.md", []string{"notes/b.md"}},
		{func() (Written, error) { return v.EditFile(ctx, "notes/a.md", "alpha", "ALPHA") }, "edit notes/a.md", []string{"notes/a.md"}},
		{func() (Written, error) { return v.RenameFile(ctx, "notes/b.md", "x/b.md", nil) }, "rename notes/b.md -> x/b.md", []string{"notes/b.md", "x/b.md"}},
		{func() (Written, error) { return v.DeleteFile(ctx, "x/b.md") }, "delete x/b.md", []string{"x/b.md"}},
	}
	for i, s := range steps {
		w, err := s.run()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if w.Commit != "abc1234" {
			t.Errorf("step %d: commit %q", i, w.Commit)
		}
		if len(calls) != i+1 {
			t.Fatalf("step %d: %d recorder calls", i, len(calls))
		}
		if c := calls[i]; c.summary != s.summary || !slices.Equal(c.paths, s.paths) {
			t.Errorf("step %d: Record(%q, %q), want (%q, %q)", i, c.summary, c.paths, s.summary, s.paths)
		}
		if len(observed) != i+1 || !slices.Equal(observed[i], s.paths) {
			t.Errorf("step %d: observers saw %q, want %q", i, observed, s.paths)
		}
	}
	// A change that touches nothing records nothing.
	commit, err := v.Update(ctx, func(tx *Tx) error { return nil })
	if err != nil || commit != "" || len(calls) != len(steps) {
		t.Errorf("empty Update: commit %q, err %v, %d calls", commit, err, len(calls))
	}
}

// committedRecorder commits and then fails to flush: Publish's error is
// a changes.CommittedError.
type committedRecorder struct{ calls int }

// notFlushed is the CommittedError committedRecorder returns.
type notFlushed struct{ err error }

func (e notFlushed) Error() string {
	return "commit abc1234 was made, but flushing it failed: " + e.err.Error()
}
func (e notFlushed) Committed() string { return "abc1234" }
func (e notFlushed) Unwrap() error     { return e.err }

func (r *committedRecorder) Record(context.Context, string, []string) (string, error) {
	r.calls++
	return "", fmt.Errorf("commit: %w", notFlushed{errors.New("flush folder: input/output error")})
}

func (r *committedRecorder) Prepare(ctx context.Context, c changes.Change) (changes.Pending, error) {
	return publishing(ctx, c, r.Record)
}

// A change whose commit was made but whose last flush failed is not
// undone: the files stay as committed (matching the branch), nothing of
// the undo is left behind, observers hear of it, and the error says it
// was committed and may not survive a power loss.
func TestCommittedChangeStaysWhenTheFlushFails(t *testing.T) {
	tests := []struct {
		name  string
		op    func(v *Vault) error
		after map[string]string // path: content, "" for gone
	}{
		{"overwrite", func(v *Vault) error {
			_, err := v.WriteFile(t.Context(), "notes/a.md", []byte("replaced"))
			return err
		}, map[string]string{"notes/a.md": "replaced"}},
		{"new file in new folders", func(v *Vault) error {
			_, err := v.WriteFile(t.Context(), "new/dir/n.md", []byte("fresh"))
			return err
		}, map[string]string{"new/dir/n.md": "fresh"}},
		{"edit", func(v *Vault) error {
			_, err := v.EditFile(t.Context(), "notes/a.md", "alpha", "omega")
			return err
		}, map[string]string{"notes/a.md": "omega\nbeta\n"}},
		{"delete", func(v *Vault) error {
			_, err := v.DeleteFile(t.Context(), "notes/a.md")
			return err
		}, map[string]string{"notes/a.md": ""}},
		{"rename", func(v *Vault) error {
			_, err := v.RenameFile(t.Context(), "notes/a.md", "moved/a.md", nil)
			return err
		}, map[string]string{"notes/a.md": "", "moved/a.md": "alpha\nbeta\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, root := newTestVault(t, Options{})
			mkfile(t, root, "notes/a.md", "alpha\nbeta\n")
			rec := &committedRecorder{}
			v.SetRecorder(rec)
			observed := 0
			v.Observe(func(changes.Batch) { observed++ })
			err := tt.op(v)
			if err == nil {
				t.Fatal("no error although the flush failed")
			}
			for _, want := range []string{"committed as abc1234", "flushing it to disk failed", "power loss", "input/output error"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "undone") {
				t.Errorf("error %q says the change was undone", err)
			}
			noAbsPath(t, err.Error(), "", root)
			if rec.calls != 1 {
				t.Errorf("recorder called %d times", rec.calls)
			}
			if observed != 1 {
				t.Errorf("observers called %d times, want 1", observed)
			}
			for rel, want := range tt.after {
				got, rerr := os.ReadFile(filepath.Join(root, rel))
				switch {
				case want == "" && !errors.Is(rerr, fs.ErrNotExist):
					t.Errorf("%s still there (%v)", rel, rerr)
				case want != "" && (rerr != nil || string(got) != want):
					t.Errorf("%s = %q (%v), want %q", rel, got, rerr, want)
				}
			}
			v.dropping.Wait() // a recorded change's backup is removed in the background
			for name := range snapshot(t, root) {
				if strings.Contains(name, tempPrefix) {
					t.Errorf("left behind: %s", name)
				}
			}
		})
	}
}

// vanishingTemp is a recorder whose Prepare removes the change's
// temporary file, so that the vault's rename into place fails.
type vanishingTemp struct{ pending *pendingFunc }

func (r *vanishingTemp) Prepare(_ context.Context, c changes.Change) (changes.Pending, error) {
	if c.Placing != nil {
		os.Remove(c.Placing.Tmp)
	}
	r.pending = &pendingFunc{publish: func() (string, error) { return "c0ffee", nil }}
	return r.pending, nil
}

// A write whose rename into place fails between the two phases is
// undone: the prepared commit is aborted, never published, the note is
// as it was, and the error names the note without an absolute path.
func TestRenameIntoPlaceFails(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "notes/a.md", "old")
	rec := &vanishingTemp{}
	v.SetRecorder(rec)
	observed := 0
	v.Observe(func(changes.Batch) { observed++ })
	v.dropping.Wait()
	before := snapshot(t, root)
	_, err := v.WriteFile(t.Context(), "notes/a.md", []byte("new"))
	if err == nil {
		t.Fatal("no error although the rename failed")
	}
	for _, want := range []string{"undone", "notes/a.md"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	noAbsPath(t, err.Error(), "", root)
	if p := rec.pending; p == nil || p.aborted != 1 {
		t.Errorf("the prepared commit was not aborted: %+v", p)
	}
	if observed != 0 {
		t.Errorf("observers called %d times", observed)
	}
	sameSnapshot(t, before, snapshot(t, root))
}
