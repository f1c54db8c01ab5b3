package vault

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestModifyFile(t *testing.T) {
	ctx := context.Background()
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "a.md", "one")
	mkdir(t, root, "dir")
	var summaries []string
	v.SetRecorder(recorderFunc(func(summary string, paths []string) (string, error) {
		summaries = append(summaries, summary)
		if !slices.Equal(paths, []string{"a.md"}) {
			t.Errorf("recorded paths %q", paths)
		}
		return "c1", nil
	}))
	patch := func(rel string) string { return "patch " + rel + " (100%)" }

	w, err := v.ModifyFile(ctx, "a.md", patch, func(src []byte) ([]byte, error) { return append(src, " two"...), nil })
	if err != nil || w.Commit != "c1" || w.Bytes != 7 || readRel(t, root, "a.md") != "one two" {
		t.Fatalf("modify: %+v, %v, %q", w, err, readRel(t, root, "a.md"))
	}
	// Unchanged content: nothing written or recorded.
	w, err = v.ModifyFile(ctx, "a.md", patch, func(src []byte) ([]byte, error) { return src, nil })
	if err != nil || w.Commit != "" {
		t.Fatalf("no-op modify: %+v, %v", w, err)
	}
	// The change's error reaches the caller; the file stays.
	boom := errors.New("boom")
	if _, err := v.ModifyFile(ctx, "a.md", patch, func([]byte) ([]byte, error) { return []byte("x"), boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got := readRel(t, root, "a.md"); got != "one two" {
		t.Fatalf("file changed by a failed modify: %q", got)
	}
	if !slices.Equal(summaries, []string{"patch a.md (100%)"}) {
		t.Errorf("summaries %q", summaries)
	}
	for given, kind := range map[string]error{"missing.md": ErrNotFound, "dir": ErrIsDir, "../x.md": ErrOutside, "": ErrInvalidPath} {
		_, err := v.ModifyFile(ctx, given, patch, func(src []byte) ([]byte, error) { return src, nil })
		checkClientError(t, err, kind, given, root)
	}
}

func TestCreateFile(t *testing.T) {
	ctx := context.Background()
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "a.md", "old")
	name := func(rel string) string { return "create " + rel }
	w, err := v.CreateFile(ctx, "Daily/2026/01-05.md", name, []byte("new"))
	if err != nil || w.Path.Rel != "Daily/2026/01-05.md" || readRel(t, root, "Daily/2026/01-05.md") != "new" {
		t.Fatalf("create: %+v, %v", w, err)
	}
	_, err = v.CreateFile(ctx, "a.md", name, []byte("x"))
	checkClientError(t, err, ErrExists, "a.md", root)
	if got := readRel(t, root, "a.md"); got != "old" {
		t.Errorf("existing file overwritten: %q", got)
	}
}
