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

// A link whose name is stored in one Unicode form and named in the other
// is still the link: delete and rename must not reach through it to the
// note it points to.
func TestEntryOpsOnLinksAcrossUnicodeForms(t *testing.T) {
	const nfc, nfd = "caf\u00e9.md", "cafe\u0301.md"
	tests := []struct {
		name        string
		stored, ask string
		op          func(v *Vault, given string) error
	}{
		{"delete NFD link named in NFC", nfd, nfc, func(v *Vault, given string) error {
			_, err := v.DeleteFile(context.Background(), given)
			return err
		}},
		{"delete NFC link named in NFD", nfc, nfd, func(v *Vault, given string) error {
			_, err := v.DeleteFile(context.Background(), given)
			return err
		}},
		{"rename NFD link named in NFC", nfd, nfc, func(v *Vault, given string) error {
			_, err := v.RenameFile(context.Background(), given, "moved.md", nil)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, root := newTestVault(t, Options{})
			mkfile(t, root, "notes/target.md", "T")
			symlink(t, root, "links/"+tt.stored, "../notes/target.md")
			if err := tt.op(v, "links/"+tt.ask); err != nil {
				t.Fatal(err)
			}
			if !exists(root, "notes/target.md") || readRel(t, root, "notes/target.md") != "T" {
				t.Error("the link's target was deleted or moved")
			}
			if exists(root, "links/"+tt.stored) {
				t.Error("the link is still there")
			}
		})
	}
}
