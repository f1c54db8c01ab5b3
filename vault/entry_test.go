package vault

import (
	"context"
	"errors"
	"testing"
)

func TestDeleteAndRenameActOnLinksNotTargets(t *testing.T) {
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "notes/a.md", "A")
	mkfile(t, root, "notes/b.md", "B")
	symlink(t, root, "alias-a.md", "notes/a.md")
	symlink(t, root, "alias-b.md", "notes/b.md")
	ctx := context.Background()

	if _, err := v.DeleteFile(ctx, "alias-a.md"); err != nil {
		t.Fatal(err)
	}
	if exists(root, "alias-a.md") || readRel(t, root, "notes/a.md") != "A" {
		t.Error("delete_file on a link must remove the link and keep its target")
	}
	w, err := v.RenameFile(ctx, "alias-b.md", "moved.md", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.From.Rel != "alias-b.md" || exists(root, "alias-b.md") || !exists(root, "moved.md") || readRel(t, root, "notes/b.md") != "B" {
		t.Errorf("rename_file on a link must move the link: %+v", w)
	}

	// A failed recorder puts the deleted link back.
	symlink(t, root, "alias-c.md", "notes/a.md")
	v.SetRecorder(recorderFunc(func(string, []string) (string, error) { return "", errors.New("disk full") }))
	if _, err := v.DeleteFile(ctx, "alias-c.md"); err == nil {
		t.Fatal("want the recorder's error")
	}
	if !exists(root, "alias-c.md") || readRel(t, root, "alias-c.md") != "A" {
		t.Error("rollback did not restore the link")
	}
}

func TestFilePathsRefused(t *testing.T) {
	v, _ := newTestVault(t, Options{})
	for _, given := range []string{"newdir/", "bad\ufffd.md"} {
		if _, err := v.WriteFile(context.Background(), given, []byte("x")); err == nil {
			t.Errorf("WriteFile(%q) succeeded", given)
		}
	}
}
