package vault

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"testing"
)

// listVault is a vault with folders and files in mixed case, the folders
// scans skip, temporary files and symlinks in and out.
func listVault(t *testing.T) (*Vault, string) {
	t.Helper()
	v, root := newTestVault(t, Options{})
	outside := t.TempDir()
	mkfile(t, outside, "secret.md", "s")
	mkfile(t, root, "b.md", "b")
	mkfile(t, root, "A.md", "a")
	mkfile(t, root, "c/inner.md", "i")
	mkfile(t, root, "c/deep/deeper/bottom.md", "d")
	mkfile(t, root, "a-folder/x.md", "x")
	mkfile(t, root, ".git/config", "[core]")
	mkfile(t, root, ".obsidian/app.json", "{}")
	mkfile(t, root, ".trash/old.md", "old")
	mkfile(t, root, "c/.claude/settings.json", "{}")
	mkfile(t, root, "c/"+tempPrefix+"x.md-123.tmp", "partial")
	mkfile(t, root, "sub/.git", "gitdir: ../.git/modules/sub") // a submodule's .git file
	symlink(t, root, "out-link.md", outside+"/secret.md")
	symlink(t, root, "out-dir", outside)
	symlink(t, root, "in-link.md", "b.md")
	symlink(t, root, "in-dir", "c")
	symlink(t, root, "git-link", ".git")
	symlink(t, root, "broken.md", "nowhere.md")
	return v, root
}

func TestList(t *testing.T) {
	v, root := listVault(t)
	type row struct {
		rel   string
		dir   bool
		depth int
	}
	rows := func(es []Entry) []row {
		var out []row
		for _, e := range es {
			out = append(out, row{e.Rel, e.IsDir, e.Depth})
		}
		return out
	}
	tests := []struct {
		given string
		depth int
		want  []row
	}{
		{"", 1, []row{
			{"a-folder", true, 1}, {"A.md", false, 1}, {"b.md", false, 1}, {"c", true, 1},
			{"in-dir", true, 1}, {"in-link.md", false, 1}, {"sub", true, 1},
		}},
		{"/", 2, []row{
			{"a-folder", true, 1}, {"a-folder/x.md", false, 2}, {"A.md", false, 1}, {"b.md", false, 1},
			{"c", true, 1}, {"c/deep", true, 2}, {"c/inner.md", false, 2},
			{"in-dir", true, 1}, {"in-link.md", false, 1}, {"sub", true, 1},
		}},
		{"c", 10, []row{
			{"c/deep", true, 1}, {"c/deep/deeper", true, 2}, {"c/deep/deeper/bottom.md", false, 3}, {"c/inner.md", false, 1},
		}},
		{"c", 0, []row{{"c/deep", true, 1}, {"c/inner.md", false, 1}}}, // depth < 1 means 1
		{"in-dir", 1, []row{{"c/deep", true, 1}, {"c/inner.md", false, 1}}},
		{"sub", 1, nil},
	}
	for _, tt := range tests {
		got, err := v.List(context.Background(), tt.given, tt.depth)
		if err != nil {
			t.Errorf("List(%q, %d): %v", tt.given, tt.depth, err)
			continue
		}
		if !slices.Equal(rows(got), tt.want) {
			t.Errorf("List(%q, %d) =\n%v\nwant\n%v", tt.given, tt.depth, rows(got), tt.want)
		}
	}
	for _, tt := range []struct {
		given string
		kind  error
	}{
		{"b.md", ErrNotDir},
		{"missing", ErrNotFound},
		{".git", ErrHidden},
		{"out-dir", ErrOutside},
		{"../", ErrOutside},
	} {
		_, err := v.List(context.Background(), tt.given, 1)
		checkClientError(t, err, tt.kind, tt.given, root)
	}
}

func TestWalk(t *testing.T) {
	v, _ := listVault(t)
	rootPath, err := v.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = v.Walk(rootPath, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"A.md", "a-folder", "a-folder/x.md", "b.md", "broken.md",
		"c", "c/deep", "c/deep/deeper", "c/deep/deeper/bottom.md", "c/inner.md",
		"git-link", "in-dir", "in-link.md", "out-dir", "out-link.md", "sub",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Walk =\n%q\nwant\n%q", got, want)
	}

	// SkipDir and ErrStop.
	got = nil
	err = v.Walk(rootPath, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		if rel == "c" {
			return fs.SkipDir
		}
		if rel == "in-dir" {
			return ErrStop
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Walk with ErrStop: %v", err)
	}
	want = []string{"A.md", "a-folder", "a-folder/x.md", "b.md", "broken.md", "c", "git-link", "in-dir"}
	if !slices.Equal(got, want) {
		t.Errorf("Walk with SkipDir/ErrStop =\n%q\nwant\n%q", got, want)
	}

	// Another error ends the walk and comes back.
	boom := errors.New("boom")
	err = v.Walk(rootPath, func(string, fs.DirEntry) error { return boom })
	if !errors.Is(err, boom) {
		t.Errorf("Walk error = %v, want boom", err)
	}

	// A sub-folder walk reports vault-relative paths.
	c, err := v.Resolve("c/deep")
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	if err := v.Walk(c, func(rel string, d fs.DirEntry) error { got = append(got, rel); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"c/deep/deeper", "c/deep/deeper/bottom.md"}; !slices.Equal(got, want) {
		t.Errorf("Walk(c/deep) = %q, want %q", got, want)
	}
}

func TestSkipped(t *testing.T) {
	v, _ := newTestVault(t, Options{})
	for name, want := range map[string]bool{
		".git": true, ".GIT": true, ".claude": true, ".obsidian": true, ".Trash": true,
		tempPrefix + "x": true, "notes": false, ".github": true, ".DS_Store": true, "git": false, "v1.2.md": false,
	} {
		if got := v.Skipped(name); got != want {
			t.Errorf("Skipped(%q) = %v, want %v", name, got, want)
		}
	}
	if !IsTemp(tempPrefix+"a.md-1.tmp") || IsTemp("a.md") {
		t.Error("IsTemp")
	}
}
