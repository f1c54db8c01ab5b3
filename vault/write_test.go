package vault

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"vaultmcp/vault/changes"
)

// summaries records what was recorded, as a history would.
type summaries struct{ got []string }

func (s *summaries) Record(_ context.Context, summary string, _ []string) (string, error) {
	s.got = append(s.got, summary)
	return "c0ffee1", nil
}

func (s *summaries) Prepare(ctx context.Context, c changes.Change) (changes.Pending, error) {
	return publishing(ctx, c, s.Record)
}

func TestWriteFileMode(t *testing.T) {
	v, root := newTestVault(t, Options{})
	rec := &summaries{}
	v.SetRecorder(rec)
	ctx := context.Background()
	mkfile(t, root, "crlf.md", "a\r\nb")
	mkfile(t, root, "plain.md", "first")
	tests := []struct {
		name, path, data string
		mode             WriteMode
		want             string // file content after
		created          bool
		prev, bytes      int
		unchanged        bool
		summary          string // "" = nothing recorded
	}{
		{"create", "new/a.md", "one\n", Overwrite, "one\n", true, 0, 4, false, "write new/a.md"},
		{"same content", "new/a.md", "one\n", Overwrite, "one\n", false, 4, 4, true, ""},
		{"replace", "new/a.md", "two!\n", Overwrite, "two!\n", false, 4, 5, false, "write new/a.md"},
		{"create only, new", "new/b.md", "b", CreateOnly, "b", true, 0, 1, false, "write new/b.md"},
		{"append, on a new line", "plain.md", "second\n", Append, "first\nsecond\n", false, 5, 13, false, "append plain.md"},
		{"append to CRLF", "crlf.md", "c\nd\n", Append, "a\r\nb\r\nc\r\nd\r\n", false, 4, 12, false, "append crlf.md"},
		{"append nothing", "plain.md", "", Append, "first\nsecond\n", false, 13, 13, true, ""},
		{"append creates", "log.md", "x\n", Append, "x\n", true, 0, 2, false, "write log.md"},
	}
	for _, tt := range tests {
		rec.got = nil
		w, err := v.WriteFileMode(ctx, tt.path, []byte(tt.data), tt.mode)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := readRel(t, root, tt.path); got != tt.want {
			t.Errorf("%s: file %q, want %q", tt.name, got, tt.want)
		}
		if w.Created != tt.created || w.PrevBytes != tt.prev || w.Bytes != tt.bytes || w.Unchanged != tt.unchanged {
			t.Errorf("%s: %+v", tt.name, w)
		}
		switch {
		case tt.summary == "" && (len(rec.got) != 0 || w.Commit != ""):
			t.Errorf("%s: recorded %q (commit %q) though nothing changed", tt.name, rec.got, w.Commit)
		case tt.summary != "" && (len(rec.got) != 1 || rec.got[0] != tt.summary || w.Commit != "c0ffee1"):
			t.Errorf("%s: recorded %q (commit %q), want %q", tt.name, rec.got, w.Commit, tt.summary)
		}
	}

	v.dropping.Wait() // earlier changes' backups are removed in the background
	before := snapshot(t, root)
	if _, err := v.WriteFileMode(ctx, "plain.md", []byte("x"), CreateOnly); !errors.Is(err, ErrExists) {
		t.Errorf("create only over a file: %v", err)
	}
	if _, err := v.WriteFileMode(ctx, "new", []byte("x"), Append); !errors.Is(err, ErrIsDir) {
		t.Errorf("append to a folder: %v", err)
	}
	if after := snapshot(t, root); !maps.Equal(after, before) {
		t.Error("a refused write changed the vault")
	}
}

func TestEditFileUnchanged(t *testing.T) {
	v, root := newTestVault(t, Options{})
	rec := &summaries{}
	v.SetRecorder(rec)
	mkfile(t, root, "a.md", "keep this")
	fi, _ := os.Stat(filepath.Join(root, "a.md"))
	w, err := v.EditFile(context.Background(), "a.md", "this", "this")
	if err != nil || !w.Unchanged || w.Commit != "" || len(rec.got) != 0 {
		t.Errorf("edit to the same text: %+v, %v, recorded %q", w, err, rec.got)
	}
	if fi2, _ := os.Stat(filepath.Join(root, "a.md")); !fi2.ModTime().Equal(fi.ModTime()) {
		t.Error("an edit that changes nothing rewrote the file")
	}
	if _, err := v.EditFile(context.Background(), "a.md", "absent", "absent"); !errors.Is(err, ErrNoMatch) {
		t.Errorf("same text that is not there: %v", err)
	}
}

func TestOpenFile(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "notes/a.md", "hello")
	f, info, err := v.OpenFile(context.Background(), "notes/a.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if info.Size != 5 || info.Path.Rel != "notes/a.md" || info.Data != nil {
		t.Errorf("info = %+v", info)
	}
	for given, kind := range map[string]error{"notes": ErrIsDir, "missing.md": ErrNotFound, "../x": ErrOutside, ".git/config": ErrHidden} {
		if _, _, err := v.OpenFile(context.Background(), given); !errors.Is(err, kind) {
			t.Errorf("OpenFile(%q) = %v, want %v", given, err, kind)
		}
	}
}

// A write that makes folders flushes the parent of each folder it made,
// so the new folders' entries are as durable as the note the recorder
// commits in the deepest one; a write into existing folders flushes none.
func TestWriteFlushesNewFoldersParents(t *testing.T) {
	tests := []struct {
		name string
		path string
		want []string // folders flushed, vault-relative
	}{
		{"root", "top.md", nil},
		{"existing folder", "notes/a2.md", nil},
		{"one new folder", "fresh/a.md", []string{"."}},
		{"nested new folders", "x/y/z/a.md", []string{".", "x", "x/y"}},
		{"new folder in an existing one", "notes/sub/a.md", []string{"notes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "notes"), 0o755); err != nil {
				t.Fatal(err)
			}
			v, err := Open(root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			var got []string
			v.dirSynced = func(abs string) {
				rel, err := filepath.Rel(v.root, abs)
				if err != nil {
					t.Errorf("flushed %s, outside the vault", abs)
				}
				got = append(got, filepath.ToSlash(rel))
			}
			if _, err := v.WriteFile(t.Context(), tt.path, []byte("text\n")); err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("folders flushed = %q, want %q", got, tt.want)
			}
		})
	}
}
