package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

// linkFiles is a vault whose Public folder a scope allows, with a hidden
// note in Private and text in .git and .obsidian, each linking to Hub and
// tagged.
var linkFiles = map[string]string{
	"Public/Hub.md":     "hub\n",
	"Public/n.md":       "public [[Hub]] #pub\n",
	"Private/secret.md": "SECRET [[Hub]] #secret\n",
	".git/config":       "[[Hub]] #gitconfig\n",
	".obsidian/x.md":    "[[Hub]] #obsidian\n",
}

// links are made in Public: one into Private, the rest where no scan
// looks.
var linksInPublic = map[string]string{
	"Public/alias.md":  "../Private/secret.md",
	"Public/git.md":    "../.git/config",
	"Public/obs.md":    "../.obsidian/x.md",
	"Public/gitdir.md": "../.git",
}

func makeLinks(t *testing.T, root string) {
	t.Helper()
	for rel, target := range linksInPublic {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
}

// A symbolic link is indexed only when it leads to a file scans read (not
// into .git or .obsidian), and under a scope its note counts only when
// the scope sees its target too: Public/alias.md -> ../Private/secret.md
// adds nothing a Public-only session can see — not its tags, not its
// links as backlinks, not its name. The same holds whether the link was
// there at the build or appeared later (the watcher's report of the link,
// or of its folder).
func TestSymlinkScope(t *testing.T) {
	tests := []struct {
		name    string
		refresh []string // nil: links made before the build
	}{
		{"build", nil},
		{"link refresh", slices.Sorted(func(yield func(string) bool) {
			for rel := range linksInPublic {
				if !yield(rel) {
					return
				}
			}
		})},
		{"folder refresh", []string{"Public"}},
		{"vault refresh", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, content := range linkFiles {
				writeFile(t, dir, rel, content)
			}
			if tt.refresh == nil {
				makeLinks(t, dir)
			}
			v, err := vault.Open(dir, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ix := New(v, nil)
			if err := ix.Build(ctx); err != nil {
				t.Fatal(err)
			}
			if tt.refresh != nil {
				makeLinks(t, dir)
				ix.Refresh(tt.refresh)
			}
			checkLinkScope(t, ix)
		})
	}
}

// checkLinkScope checks what linkFiles with linksInPublic show, scoped to
// Public and unscoped.
func checkLinkScope(t *testing.T, ix *Index) {
	t.Helper()
	for _, rel := range []string{"Public/git.md", "Public/obs.md", "Public/gitdir.md"} {
		if ok, _ := ix.HasFile(ctx, rel); ok {
			t.Errorf("%s, a link where scans do not look, is indexed", rel)
		}
	}
	if ok, _ := ix.HasNote(ctx, "Public/alias.md"); !ok {
		t.Error("Public/alias.md is not indexed for an unrestricted session")
	}
	if got := tagNames(t, ix, ctx); got != "pub secret" {
		t.Errorf("unscoped tags = %q, want %q", got, "pub secret")
	}

	scoped := access.With(ctx, access.MustNew("test", access.Rules{Allow: []string{"Public"}}))
	if got := tagNames(t, ix, scoped); got != "pub" {
		t.Errorf("tags under allow Public = %q, want pub", got)
	}
	bl, err := ix.Backlinks(scoped, "Public/Hub.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sources(bl), " "); got != "Public/n.md" {
		t.Errorf("backlinks(Hub) under allow Public = %q, want Public/n.md", got)
	}
	if bl, _ := ix.BacklinksByName(scoped, "Hub"); len(bl) != 1 {
		t.Errorf("backlinks by name (Hub) under allow Public = %q, want Public/n.md", sources(bl))
	}
	if total, page, _ := ix.Linkers(scoped, "Public/Hub.md", 0, 10); total != 1 || len(page) != 1 || page[0].Source != "Public/n.md" {
		t.Errorf("linkers(Hub) under allow Public = %d %+v, want Public/n.md", total, page)
	}
	for _, rel := range []string{"Public/alias.md"} {
		if ok, _ := ix.HasNote(scoped, rel); ok {
			t.Errorf("HasNote(%s) under allow Public", rel)
		}
		if ok, _ := ix.HasFile(scoped, rel); ok {
			t.Errorf("HasFile(%s) under allow Public", rel)
		}
	}
	if rel, ok, _ := ix.ResolveName(scoped, "alias"); ok {
		t.Errorf("[[alias]] resolves to %s under allow Public", rel)
	}
	if st, _ := ix.Stats(scoped); st.Notes != 2 || st.Files != 2 || st.Tags != 1 {
		t.Errorf("stats under allow Public = %+v, want 2 notes, 2 files, 1 tag", st)
	}
}

// tagNames lists the tags ctx's session sees, sorted, space-separated.
func tagNames(t *testing.T, ix *Index, ctx context.Context) string {
	t.Helper()
	tags, err := ix.Tags(ctx, "", false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tc := range tags {
		names = append(names, tc.Tag)
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}

// A link that changes is judged by what it is now: retargeted into
// Private it hides, replaced by a note of its own it shows, removed it is
// gone with its target; and a search walking the texts of a moment
// before the change never gets the link's old note, which only its old
// target could justify.
func TestSymlinkChanges(t *testing.T) {
	v, ix := newVault(t, linkFiles)
	root := v.Root()
	link := filepath.Join(root, "Public", "alias.md")
	scoped := access.With(ctx, access.MustNew("test", access.Rules{Allow: []string{"Public"}}))
	visible := func() bool { return ix.Scope(scoped).Visible("Public/alias.md") }

	if err := os.Symlink("n.md", link); err != nil {
		t.Skip("no symlinks:", err)
	}
	ix.Refresh([]string{"Public/alias.md"})
	if target, ok := ix.LinkTarget("Public/alias.md"); !ok || target != "Public/n.md" || !visible() {
		t.Fatalf("link to Public/n.md: target %q %v, visible %v", target, ok, visible())
	}

	// Retargeted: the watcher reports the link's path.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../Private/secret.md", link); err != nil {
		t.Fatal(err)
	}
	ix.Refresh([]string{"Public/alias.md"})
	if target, _ := ix.LinkTarget("Public/alias.md"); target != "Private/secret.md" || visible() {
		t.Fatalf("retargeted into Private: target %q, visible %v", target, visible())
	}
	if got := tagNames(t, ix, scoped); got != "pub" {
		t.Errorf("tags under allow Public = %q, want pub", got)
	}

	// A search that began before the link went keeps walking the texts
	// as they were; the link's note must not reach it once the link is
	// gone, judged by its path alone.
	var after []string
	removed := false
	ix.Texts("", func(rel string, _ []byte) bool {
		if removed {
			after = append(after, rel)
		} else if rel != "Public/alias.md" {
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			ix.Refresh([]string{"Public/alias.md"})
			removed = true
		}
		return true
	})
	if slices.Contains(after, "Public/alias.md") {
		t.Errorf("a search under way got the removed link's note: %q", after)
	}
	if _, ok := ix.LinkTarget("Public/alias.md"); ok {
		t.Error("the removed link still has a target")
	}

	// A note of its own where the link was shows.
	writeFile(t, root, "Public/alias.md", "own #own\n")
	ix.Refresh([]string{"Public/alias.md"})
	if _, ok := ix.LinkTarget("Public/alias.md"); ok || !visible() {
		t.Errorf("a note where the link was: still a link %v, visible %v", ok, visible())
	}
	if got := tagNames(t, ix, scoped); got != "own pub" {
		t.Errorf("tags under allow Public = %q, want own pub", got)
	}
}
