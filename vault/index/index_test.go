package index

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"vaultmcp/vault"
)

// newVault writes files (rel path -> content) into a temp vault and returns
// it with a built index, kept fresh by the vault's own changes.
func newVault(t testing.TB, files map[string]string) (*vault.Vault, *Index) {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		writeFile(t, dir, rel, content)
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := New(v, nil)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	v.Observe(ix.Changed)
	return v, ix
}

func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sources(bl []Backlink) []string {
	out := make([]string, len(bl))
	for i, b := range bl {
		out[i] = b.Source
	}
	return out
}

var ctx = context.Background()

func TestBacklinks(t *testing.T) {
	_, ix := newVault(t, map[string]string{
		"Project Ideas.md":             "# Ideas\n## Big\n",
		"Daily Notes/2025-01-15.md":    "Met about [[Project Ideas]] and [[Meeting Notes]].",
		"Work/Active Projects.md":      "See [[Project Ideas|Ideas]].",
		"Archive/Brainstorm.md":        "![[Project Ideas#Big]] and [[project ideas#^abc|x]]",
		"Code.md":                      "```\n[[Project Ideas]]\n```\n`[[Project Ideas]]` %%[[Project Ideas]]%% $[[Project Ideas]]$",
		"Table.md":                     "| a | b |\n|---|---|\n| [[Project Ideas\\|alias]] | x |\n",
		"Md.md":                        "[text](Project%20Ideas.md) and [t](<Project Ideas.md>)",
		"Folder/Other/Deep.md":         "[[Work/Active Projects]]",
		"Self.md":                      "[[#Heading]] [[Self]]",
		"attachments/diagram.png":      "\x89PNG",
		"Uses Image.md":                "![[diagram.png]]",
		".obsidian/workspace.md":       "[[Project Ideas]]",
		"Daily Notes/Meeting Notes.md": "[[Project Ideas]]",
	})
	tests := []struct {
		target string
		want   []string
	}{
		{"Project Ideas.md", []string{"Archive/Brainstorm.md", "Daily Notes/2025-01-15.md", "Daily Notes/Meeting Notes.md", "Md.md", "Table.md", "Work/Active Projects.md"}},
		{"Work/Active Projects.md", []string{"Folder/Other/Deep.md"}},
		{"attachments/diagram.png", []string{"Uses Image.md"}},
		{"Self.md", []string{}},
		{"Daily Notes/Meeting Notes.md", []string{"Daily Notes/2025-01-15.md"}},
	}
	for _, tt := range tests {
		bl, err := ix.Backlinks(ctx, tt.target)
		if err != nil {
			t.Fatal(err)
		}
		if got := sources(bl); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("Backlinks(%s) = %q, want %q", tt.target, got, tt.want)
		}
	}
	bl, _ := ix.Backlinks(ctx, "Project Ideas.md")
	for _, b := range bl {
		if b.Source == "Daily Notes/2025-01-15.md" && !slices.Equal(b.Links, []string{"Project Ideas", "Meeting Notes"}) {
			t.Errorf("links of %s = %q", b.Source, b.Links)
		}
		if b.Source == "Work/Active Projects.md" && !slices.Equal(b.Links, []string{"Project Ideas|Ideas"}) {
			t.Errorf("links of %s = %q", b.Source, b.Links)
		}
	}
	byName, err := ix.BacklinksByName(ctx, "project ideas")
	if err != nil {
		t.Fatal(err)
	}
	if len(byName) != 6 {
		t.Errorf("BacklinksByName = %q", sources(byName))
	}
}

func TestBrokenAndDanglingNames(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"A.md":        "[[Missing]] [[B#Nope]] [[B]] [[Missing|again]] ![[gone.png]] ```x``` [[C]]",
		"B.md":        "# Real\n",
		"x/Linker.md": "[[Missing]]",
		"img/ok.png":  "png",
		"OkImage.md":  "![[ok.png]]",
	})
	broken, err := ix.Broken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []BrokenLinks{
		{Source: "A.md", Targets: []string{"Missing", "gone.png", "C"}},
		{Source: "x/Linker.md", Targets: []string{"Missing"}},
	}
	if len(broken) != len(want) {
		t.Fatalf("Broken = %+v", broken)
	}
	for i := range want {
		if broken[i].Source != want[i].Source || !slices.Equal(broken[i].Targets, want[i].Targets) {
			t.Errorf("Broken[%d] = %+v, want %+v", i, broken[i], want[i])
		}
	}
	bl, err := ix.BacklinksByName(ctx, "Missing")
	if err != nil {
		t.Fatal(err)
	}
	if got := sources(bl); !slices.Equal(got, []string{"A.md", "x/Linker.md"}) {
		t.Errorf("backlinks of a missing note = %q", got)
	}

	// Creating the missing note resolves the links: read-your-writes.
	if _, err := v.WriteFile(ctx, "x/Missing.md", []byte("now here")); err != nil {
		t.Fatal(err)
	}
	bl, _ = ix.Backlinks(ctx, "x/Missing.md")
	if got := sources(bl); !slices.Equal(got, []string{"A.md", "x/Linker.md"}) {
		t.Errorf("after create, backlinks = %q", got)
	}
	broken, _ = ix.Broken(ctx)
	if len(broken) != 1 || !slices.Equal(broken[0].Targets, []string{"gone.png", "C"}) {
		t.Errorf("after create, broken = %+v", broken)
	}
	// Deleting it breaks them again.
	if _, err := v.DeleteFile(ctx, "x/Missing.md"); err != nil {
		t.Fatal(err)
	}
	broken, _ = ix.Broken(ctx)
	if len(broken) != 2 {
		t.Errorf("after delete, broken = %+v", broken)
	}
}

func TestSharedNameMovesWithFiles(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"deep/er/Twin.md": "",
		"z/Linker.md":     "[[Twin]]",
	})
	bl, _ := ix.Backlinks(ctx, "deep/er/Twin.md")
	if len(bl) != 1 {
		t.Fatalf("backlinks = %+v", bl)
	}
	// A nearer Twin takes the link over.
	if _, err := v.WriteFile(ctx, "Twin.md", nil); err != nil {
		t.Fatal(err)
	}
	if bl, _ := ix.Backlinks(ctx, "deep/er/Twin.md"); len(bl) != 0 {
		t.Errorf("old target still has backlinks %+v", bl)
	}
	if bl, _ := ix.Backlinks(ctx, "Twin.md"); len(bl) != 1 {
		t.Errorf("new target backlinks %+v", bl)
	}
}

func TestOutlinks(t *testing.T) {
	_, ix := newVault(t, map[string]string{
		"A.md":     "[[B]] [[B|again]] [[Nope]] [[#Local]] [[sub/C]]",
		"B.md":     "",
		"sub/C.md": "",
	})
	out, ok, err := ix.Outlinks(ctx, "A.md")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := []Outlink{{"B", "B.md"}, {"Nope", ""}, {"sub/C", "sub/C.md"}}
	if !slices.Equal(out, want) {
		t.Errorf("Outlinks = %+v, want %+v", out, want)
	}
}

func TestTags(t *testing.T) {
	_, ix := newVault(t, map[string]string{
		"A.md": "---\ntags: [project, Area/Work]\n---\n# Heading\n#project #Project #area/home `#code` http://x.com/#frag #123",
		"B.md": "---\ntags: \"#project status/done\"\n---\n#Project",
	})
	tags, err := ix.Tags(ctx, "", false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TagCount{}
	for _, tc := range tags {
		got[strings.ToLower(tc.Tag)] = tc
	}
	if tc := got["project"]; tc.Count != 5 || tc.Notes != 2 || tc.Tag != "project" && tc.Tag != "Project" {
		t.Errorf("project = %+v", tc)
	}
	if tags[0].Count < tags[len(tags)-1].Count {
		t.Error("not sorted by frequency")
	}
	for _, bad := range []string{"code", "frag", "123", "heading"} {
		if _, ok := got[bad]; ok {
			t.Errorf("%q counted as a tag", bad)
		}
	}
	withParents, _ := ix.Tags(ctx, "", true)
	found := false
	for _, tc := range withParents {
		if strings.EqualFold(tc.Tag, "area") {
			found = true
			if tc.Count != 2 {
				t.Errorf("area (parents) = %+v, want count 2", tc)
			}
		}
	}
	if !found {
		t.Error("parent tag area missing with parents=true")
	}
	one, _ := ix.Tags(ctx, "B.md", false)
	if len(one) != 2 {
		t.Errorf("tags of B = %+v", one)
	}
}

func TestRefreshExternalChanges(t *testing.T) {
	v, ix := newVault(t, map[string]string{"A.md": "", "B.md": "[[A]]"})
	dir := v.Root()
	writeFile(t, dir, "sub/C.md", "[[A]] [[B]]")
	ix.Refresh([]string{"sub"})
	if bl, _ := ix.Backlinks(ctx, "A.md"); len(bl) != 2 {
		t.Errorf("after external create, backlinks(A) = %q", sources(bl))
	}
	if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	ix.Refresh([]string{"sub"})
	if bl, _ := ix.Backlinks(ctx, "A.md"); len(bl) != 1 {
		t.Errorf("after external folder delete, backlinks(A) = %q", sources(bl))
	}
	if ok, _ := ix.HasFile(ctx, "sub/C.md"); ok {
		t.Error("deleted file still indexed")
	}
}

func TestPlanRename(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"Old.md":     "I am [[Old]]. See [[Other]] and [rel](sub/Rel.md).",
		"Other.md":   "",
		"sub/Rel.md": "",
		"A.md":       "[[Old]] [[Old|alias]] [[Old#Head]] [[Old#^blk|b]] ![[Old]] [[old.md]] `[[Old]]`",
		"B.md":       "[t](Old.md) [t2](<Old.md>) [[Unrelated]]",
		"dir/C.md":   "[[Old]] | [[Old\\|esc]] |",
		"dir/Old.md": "a different Old in dir/",
		"D.md":       "[[dir/Old]]",
	})
	_, err := v.RenameFile(ctx, "Old.md", "new/place/New Name.md", func(tx *vault.Tx, from, to vault.Path) error {
		_, _, err := ix.FollowRename(ctx, tx, from.Rel, to.Rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(v.Root(), rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	want := map[string]string{
		"A.md":                  "[[New Name]] [[New Name|alias]] [[New Name#Head]] [[New Name#^blk|b]] ![[New Name]] [[New Name.md]] `[[Old]]`",
		"B.md":                  "[t](new/place/New%20Name.md) [t2](<new/place/New Name.md>) [[Unrelated]]",
		"D.md":                  "[[dir/Old]]",
		"new/place/New Name.md": "I am [[New Name]]. See [[Other]] and [rel](sub/Rel.md).",
	}
	for rel, w := range want {
		if got := read(rel); got != w {
			t.Errorf("%s:\n got %q\nwant %q", rel, got, w)
		}
	}
	// dir/C.md's [[Old]] meant dir/Old.md (same folder wins): untouched.
	if got := read("dir/C.md"); got != "[[Old]] | [[Old\\|esc]] |" {
		t.Errorf("dir/C.md changed: %q", got)
	}
	if bl, _ := ix.Backlinks(ctx, "new/place/New Name.md"); len(bl) != 2 {
		t.Errorf("backlinks after rename = %q", sources(bl))
	}
	if broken, _ := ix.Broken(ctx); len(broken) != 1 || broken[0].Source != "B.md" {
		t.Errorf("broken after rename = %+v", broken)
	}
}

func TestTextsAndFiles(t *testing.T) {
	_, ix := newVault(t, map[string]string{
		"a/One.md":       "one",
		"a/b/Two.md":     "two",
		"ab/Three.md":    "three",
		"a/pic.png":      "png",
		".obsidian/x.md": "hidden",
	})
	var notes, files []string
	ix.Texts("a", func(rel string, content []byte) bool {
		notes = append(notes, rel+"="+string(content))
		return true
	})
	ix.Files("a/", func(rel string) bool {
		files = append(files, rel)
		return true
	})
	slices.Sort(notes)
	slices.Sort(files)
	if want := []string{"a/One.md=one", "a/b/Two.md=two"}; !slices.Equal(notes, want) {
		t.Errorf("Texts(a) = %q, want %q", notes, want)
	}
	if want := []string{"a/One.md", "a/b/Two.md", "a/pic.png"}; !slices.Equal(files, want) {
		t.Errorf("Files(a/) = %q, want %q", files, want)
	}
	n := 0
	ix.Files("", func(string) bool { n++; return false })
	if n != 1 {
		t.Errorf("Files did not stop when fn returned false: %d calls", n)
	}
}

// Texts walks a list of the notes shared between calls until the index
// changes: each change shows in the next walk, and walks running while
// notes change see a consistent set (run with -race).
func TestTextsFollowChanges(t *testing.T) {
	v, ix := newVault(t, map[string]string{"One.md": "one", "Two.md": "two"})
	dir := v.Root()
	texts := func() string {
		var got []string
		ix.Texts("", func(rel string, content []byte) bool {
			got = append(got, rel+"="+string(content))
			return true
		})
		slices.Sort(got)
		return strings.Join(got, " ")
	}
	if got, want := texts(), "One.md=one Two.md=two"; got != want {
		t.Fatalf("Texts = %q, want %q", got, want)
	}
	writeFile(t, dir, "One.md", "one, changed")
	writeFile(t, dir, "Three.md", "three")
	if err := os.Remove(filepath.Join(dir, "Two.md")); err != nil {
		t.Fatal(err)
	}
	ix.Refresh([]string{"One.md", "Two.md", "Three.md"})
	if got, want := texts(), "One.md=one, changed Three.md=three"; got != want {
		t.Fatalf("after changes, Texts = %q, want %q", got, want)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			writeFile(t, dir, "One.md", fmt.Sprint("one ", i))
			ix.Refresh([]string{"One.md"})
		}
	}()
	for walking := true; walking; {
		select {
		case <-done:
			walking = false
		default:
		}
		if got := texts(); !strings.HasPrefix(got, "One.md=one") || !strings.HasSuffix(got, " Three.md=three") {
			t.Fatalf("during changes, Texts = %q", got)
		}
	}
	if got, want := texts(), "One.md=one 199 Three.md=three"; got != want {
		t.Fatalf("after the last change, Texts = %q, want %q", got, want)
	}
}

// Paths in skipped or hidden folders never enter the index, however they
// are reported: the vault's own write into .trash, a pull touching
// .obsidian, a folder refresh inside one.
func TestRefreshLeavesOutSkippedFolders(t *testing.T) {
	tests := []struct {
		name    string
		rel     string
		refresh string // "" when written through the vault
	}{
		{"write into .trash", ".trash/Old.md", ""},
		{"pull into .obsidian", ".obsidian/snippets/x.md", ".obsidian/snippets/x.md"},
		{"folder refresh of .trash", ".trash/sub/Gone.md", ".trash"},
		{"temp file", "notes/.vaultmcp-A.md-1.tmp", "notes/.vaultmcp-A.md-1.tmp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ix := newVault(t, map[string]string{"A.md": ""})
			if tt.refresh == "" {
				if _, err := v.WriteFile(ctx, tt.rel, []byte("[[A]] #skipped")); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, v.Root(), tt.rel, "[[A]] #skipped")
				ix.Refresh([]string{tt.refresh})
			}
			if ok, _ := ix.HasFile(ctx, tt.rel); ok {
				t.Errorf("%s indexed", tt.rel)
			}
			if bl, _ := ix.Backlinks(ctx, "A.md"); len(bl) != 0 {
				t.Errorf("backlinks(A) = %q", sources(bl))
			}
			if tags, _ := ix.Tags(ctx, "", false); len(tags) != 0 {
				t.Errorf("tags = %+v", tags)
			}
		})
	}
}

// A symbolic link to a note is indexed under the link's own path, by a
// refresh as by the build: the link's links count once for the link, and
// forgetting the link leaves its target's entries alone.
func TestRefreshSymlinkedNote(t *testing.T) {
	tests := []struct {
		name    string
		refresh string // what the refresh is told about
	}{
		{"folder refresh", "d"},
		{"link refresh", "d/L.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ix := newVault(t, map[string]string{"A.md": "", "T.md": "[[A]]", "d/keep.md": ""})
			link := filepath.Join(v.Root(), "d", "L.md")
			if err := os.Symlink("../T.md", link); err != nil {
				t.Skip("no symlinks:", err)
			}
			ix.Refresh([]string{tt.refresh})
			fresh := New(v, nil)
			if err := fresh.Build(ctx); err != nil {
				t.Fatal(err)
			}
			want, _ := fresh.Backlinks(ctx, "A.md")
			got, _ := ix.Backlinks(ctx, "A.md")
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("after adding the link, backlinks(A) = %+v, want %+v (as built)", got, want)
			}
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			ix.Refresh([]string{tt.refresh})
			// T.md's own link must survive the link's removal, also for
			// re-resolution: deleting A breaks it.
			if _, err := v.DeleteFile(ctx, "A.md"); err != nil {
				t.Fatal(err)
			}
			broken, _ := ix.Broken(ctx)
			if len(broken) != 1 || broken[0].Source != "T.md" {
				t.Errorf("after removing the link and A, broken = %+v, want T.md", broken)
			}
		})
	}
}

// A change reported while the first build runs is not lost: the build's
// walk may already have passed it. A hook holds the build between its walk
// and its end until the write is done.
func TestRefreshDuringBuild(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "A.md", "")
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := New(v, nil)
	v.Observe(ix.Changed)
	walked, proceed := make(chan struct{}), make(chan struct{})
	ix.walked = func() {
		close(walked)
		<-proceed
	}
	built := make(chan error, 1)
	go func() { built <- ix.Build(ctx) }()
	<-walked
	if _, err := v.WriteFile(ctx, "B.md", []byte("[[A]]")); err != nil {
		t.Fatal(err)
	}
	close(proceed)
	if err := <-built; err != nil {
		t.Fatal(err)
	}
	if ok, _ := ix.HasNote(ctx, "B.md"); !ok {
		t.Error("B.md, written during the build, is not indexed")
	}
	if bl, _ := ix.Backlinks(ctx, "A.md"); len(bl) != 1 {
		t.Errorf("backlinks(A) = %q, want B.md", sources(bl))
	}
}

// A refresh that read a file before a write must not install its stale
// copy after the write's own refresh (the watcher refreshes what the
// vault's observer refreshes too): read-your-writes holds after every
// write.
func TestConcurrentRefreshKeepsLastWrite(t *testing.T) {
	v, ix := newVault(t, map[string]string{"N.md": ""})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // the watcher, late with events for N.md
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				ix.Refresh([]string{"N.md"})
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for i := range 300 {
		want := fmt.Sprintf("#v%d", i)
		if _, err := v.WriteFile(ctx, "N.md", []byte(want)); err != nil {
			t.Fatal(err)
		}
		tags, _ := ix.Tags(ctx, "N.md", false)
		if len(tags) != 1 || "#"+tags[0].Tag != want {
			t.Fatalf("write %d: tags of N.md = %+v, want %s", i, tags, want)
		}
	}
}

// With parents, a note counts once toward a parent however many of its
// children it carries, and the parent's spelling is cut from each
// spelling at its own slash, whatever the Unicode form.
func TestTagParents(t *testing.T) {
	nfd := "Cafe\u0301" // as macOS keyboards and some sync tools store it
	_, ix := newVault(t, map[string]string{
		"A.md": "#area/work #area/home #area",
		"B.md": "#area/work",
		"C.md": "#" + nfd + "/x #" + nfd + "/y",
	})
	tests := []struct {
		rel         string
		tag         string
		count, note int
	}{
		{"", "area", 4, 2},
		{"", "area/work", 2, 2},
		{"A.md", "area", 3, 1},
		{"", nfd, 2, 1},
	}
	for _, tt := range tests {
		tags, err := ix.Tags(ctx, tt.rel, true)
		if err != nil {
			t.Fatal(err)
		}
		var got *TagCount
		for i := range tags {
			if !utf8.ValidString(tags[i].Tag) {
				t.Errorf("Tags(%q) holds invalid UTF-8 %q", tt.rel, tags[i].Tag)
			}
			if key(tags[i].Tag) == key(tt.tag) {
				got = &tags[i]
			}
		}
		if got == nil || got.Count != tt.count || got.Notes != tt.note {
			t.Errorf("Tags(%q, parents)[%s] = %+v, want count %d in %d notes", tt.rel, tt.tag, got, tt.count, tt.note)
		}
	}
}

// The renamed note's own links are rewritten from its text on disk, not
// from the index's copy, which can lag an edit made outside (the watcher
// waits for a quiet moment): the rename must not undo that edit.
func TestPlanRenameReadsMovedNoteFromDisk(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"a/Old.md": "[r](../Other.md)",
		"Other.md": "",
	})
	writeFile(t, v.Root(), "a/Old.md", "[r](../Other.md) and an edit in Obsidian") // not refreshed yet
	if _, err := v.RenameFile(ctx, "a/Old.md", "a/b/Old.md", func(tx *vault.Tx, from, to vault.Path) error {
		_, _, err := ix.FollowRename(ctx, tx, from.Rel, to.Rel)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(v.Root(), "a/b/Old.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "[r](../../Other.md) and an edit in Obsidian"; string(data) != want {
		t.Errorf("moved note = %q, want %q", data, want)
	}
}

// DanglingAfterDelete counts only the links a deletion really breaks: a
// link that falls back to another file of the same name stays whole.
func TestDanglingAfterDelete(t *testing.T) {
	_, ix := newVault(t, map[string]string{
		"Note.md":     "",
		"sub/Note.md": "",
		"sub/x.md":    "[[Note]] [[sub/Note]] [[Note#h]]", // all three resolve to sub/Note.md
		"y.md":        "[[sub/Note]]",
		"Only.md":     "",
		"z.md":        "[[Only]] [[Only|again]]",
	})
	tests := []struct {
		rel          string
		links, notes int
	}{
		{"sub/Note.md", 2, 2}, // the [[sub/Note]]s break; [[Note]] and [[Note#h]] fall back to Note.md
		{"Only.md", 2, 1},
		{"Note.md", 0, 0},
	}
	for _, tt := range tests {
		links, notes, err := ix.DanglingAfterDelete(ctx, tt.rel)
		if err != nil {
			t.Fatal(err)
		}
		if links != tt.links || notes != tt.notes {
			t.Errorf("DanglingAfterDelete(%s) = %d links in %d notes, want %d in %d", tt.rel, links, notes, tt.links, tt.notes)
		}
	}
	// Asking changes nothing.
	if bl, _ := ix.Backlinks(ctx, "sub/Note.md"); len(bl) != 2 {
		t.Errorf("backlinks(sub/Note.md) = %q", sources(bl))
	}
	if got, ok := ix.names.resolve("Note", "sub/x.md"); !ok || got != "sub/Note.md" {
		t.Errorf("[[Note]] from sub/ resolves to %q, %v after the question", got, ok)
	}
}

// A path that changes kind on disk is re-indexed as what it now is: a
// note replaced by a folder of the same name is forgotten, and the other
// way round its former children are.
func TestRefreshPathChangesKind(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		replace func(t *testing.T, root string)
		gone    []string
		present []string
	}{
		{
			name:  "note becomes folder",
			files: map[string]string{"A.md": "[[B]]", "B.md": ""},
			replace: func(t *testing.T, root string) {
				os.Remove(filepath.Join(root, "A.md"))
				writeFile(t, root, "A.md/inner.md", "")
			},
			gone:    []string{"A.md"},
			present: []string{"A.md/inner.md"},
		},
		{
			name:  "folder becomes note",
			files: map[string]string{"A.md/inner.md": "[[B]]", "B.md": ""},
			replace: func(t *testing.T, root string) {
				os.RemoveAll(filepath.Join(root, "A.md"))
				writeFile(t, root, "A.md", "")
			},
			gone:    []string{"A.md/inner.md"},
			present: []string{"A.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ix := newVault(t, tt.files)
			tt.replace(t, v.Root())
			ix.Refresh([]string{"A.md"})
			for _, rel := range tt.gone {
				if ok, _ := ix.HasFile(ctx, rel); ok {
					t.Errorf("%s still indexed", rel)
				}
			}
			for _, rel := range tt.present {
				if ok, _ := ix.HasFile(ctx, rel); !ok {
					t.Errorf("%s not indexed", rel)
				}
			}
			checkBelow(t, ix, "A.md", "A.md/")
			if bl, _ := ix.Backlinks(ctx, "B.md"); len(bl) != 0 {
				t.Errorf("backlinks(B) = %q from a note that is gone", sources(bl))
			}
		})
	}
}

// A symbolic link to a folder is not a file: neither the build nor a
// folder refresh lists it among the files (search_files read it from
// there and showed the folder as a file).
func TestLinkToFolderIsNoFile(t *testing.T) {
	tests := []struct {
		name    string
		refresh []string // nil: a fresh build
	}{
		{"build", nil},
		{"folder refresh", []string{"d"}},
		{"link refresh", []string{"d/alias"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ix := newVault(t, map[string]string{"real/a.md": "x", "d/b.md": ""})
			if err := os.Symlink("../real", filepath.Join(v.Root(), "d", "alias")); err != nil {
				t.Skip("no symlinks:", err)
			}
			if tt.refresh == nil {
				ix = New(v, nil)
				if err := ix.Build(ctx); err != nil {
					t.Fatal(err)
				}
			} else {
				ix.Refresh(tt.refresh)
			}
			if ok, _ := ix.HasFile(ctx, "d/alias"); ok {
				t.Error("the link to a folder is indexed as a file")
			}
			if ok, _ := ix.HasFile(ctx, "d/b.md"); !ok {
				t.Error("d/b.md is missing")
			}
		})
	}
}

// checkBelow fails unless ix.below counts exactly the files below each
// folder, and Files answers for each path in paths as a scan of every
// file would.
func checkBelow(t *testing.T, ix *Index, paths ...string) {
	t.Helper()
	ix.mu.RLock()
	want := map[string]int{}
	for rel := range ix.files {
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			want[d]++
		}
	}
	got := maps.Clone(ix.below)
	var all []string
	for rel := range ix.files {
		all = append(all, rel)
	}
	ix.mu.RUnlock()
	if !maps.Equal(got, want) {
		t.Errorf("below = %v, want %v", got, want)
	}
	for _, p := range paths {
		var listed, scanned []string
		ix.Files(p, func(rel string) bool {
			listed = append(listed, rel)
			return true
		})
		for _, rel := range all {
			if under(rel, strings.TrimSuffix(p, "/")) {
				scanned = append(scanned, rel)
			}
		}
		slices.Sort(listed)
		slices.Sort(scanned)
		if !slices.Equal(listed, scanned) {
			t.Errorf("Files(%q) = %q, want %q", p, listed, scanned)
		}
	}
}

// The count of files below each folder follows every kind of change, so
// a refresh or a listing that trusts it to skip a scan of the vault
// drops and lists what a scan would.
func TestBelowFollowsChanges(t *testing.T) {
	files := map[string]string{
		"A.md":          "[[B]]",
		"B.md":          "",
		"a/One.md":      "[[A]]",
		"a/b/Two.md":    "[[One]]",
		"a/b/c/pic.png": "png",
		"ab/Three.md":   "",
	}
	paths := []string{"", "a", "a/", "a/b", "a/b/c", "ab", "A.md", "a/One.md", "gone", "x", "x/y"}
	steps := []struct {
		name    string
		change  func(t *testing.T, root string)
		refresh []string
	}{
		{"build", func(*testing.T, string) {}, nil},
		{"new note deep", func(t *testing.T, root string) { writeFile(t, root, "x/y/z/New.md", "[[A]]") }, []string{"x/y/z/New.md"}},
		{"new folder reported whole", func(t *testing.T, root string) {
			writeFile(t, root, "f/g/One.md", "")
			writeFile(t, root, "f/Two.md", "")
		}, []string{"f"}},
		{"note renamed", func(t *testing.T, root string) {
			mustRename(t, filepath.Join(root, "a", "One.md"), filepath.Join(root, "a", "b", "One.md"))
		}, []string{"a/One.md", "a/b/One.md"}},
		{"note deleted", func(t *testing.T, root string) { mustRemove(t, filepath.Join(root, "x", "y", "z", "New.md")) }, []string{"x/y/z/New.md"}},
		{"folder deleted", func(t *testing.T, root string) { mustRemove(t, filepath.Join(root, "a", "b")) }, []string{"a/b"}},
		{"note becomes folder", func(t *testing.T, root string) {
			mustRemove(t, filepath.Join(root, "A.md"))
			writeFile(t, root, "A.md/inner.md", "")
		}, []string{"A.md"}},
		{"folder becomes note", func(t *testing.T, root string) {
			mustRemove(t, filepath.Join(root, "f"))
			writeFile(t, root, "f", "")
		}, []string{"f"}},
		{"folder renamed", func(t *testing.T, root string) {
			mustRename(t, filepath.Join(root, "ab"), filepath.Join(root, "x", "ab"))
		}, []string{"ab", "x/ab"}},
		{"whole vault", func(t *testing.T, root string) { mustRemove(t, filepath.Join(root, "x")) }, []string{""}},
	}
	v, ix := newVault(t, files)
	for _, st := range steps {
		st.change(t, v.Root())
		if st.refresh != nil {
			ix.Refresh(st.refresh)
		}
		t.Run(st.name, func(t *testing.T) { checkBelow(t, ix, paths...) })
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func mustRemove(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

// A note stored with a decomposed name (as macOS writes accents) that is
// deleted, renamed away or removed outside the server leaves the index:
// the path reported is the stored one, while a name gone from disk
// resolves to its composed spelling (a renamed note stayed listed under
// its old name, in backlinks, searches and grep).
func TestRefreshForgetsDecomposedName(t *testing.T) {
	nfd := norm.NFD.String("Résumé café.md")
	folder := norm.NFD.String("Été")
	tests := []struct {
		name   string
		files  map[string]string
		change func(t *testing.T, v *vault.Vault)
		gone   string
	}{
		{
			name:  "delete_file",
			files: map[string]string{nfd: "[[T]]", "T.md": ""},
			change: func(t *testing.T, v *vault.Vault) {
				if _, err := v.DeleteFile(ctx, norm.NFC.String(nfd)); err != nil {
					t.Fatal(err)
				}
			},
			gone: nfd,
		},
		{
			name:  "rename_file",
			files: map[string]string{nfd: "[[T]]", "T.md": ""},
			change: func(t *testing.T, v *vault.Vault) {
				if _, err := v.RenameFile(ctx, norm.NFC.String(nfd), "Notes/Moved.md", nil); err != nil {
					t.Fatal(err)
				}
			},
			gone: nfd,
		},
		{
			name:  "removed outside the server",
			files: map[string]string{nfd: "[[T]]", "T.md": ""},
			change: func(t *testing.T, v *vault.Vault) {
				if err := os.Remove(filepath.Join(v.Root(), nfd)); err != nil {
					t.Fatal(err)
				}
			},
			gone: nfd,
		},
		{
			name:  "folder removed outside the server",
			files: map[string]string{folder + "/A.md": "[[T]]", "T.md": ""},
			change: func(t *testing.T, v *vault.Vault) {
				if err := os.RemoveAll(filepath.Join(v.Root(), folder)); err != nil {
					t.Fatal(err)
				}
			},
			gone: folder + "/A.md",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ix := newVault(t, tt.files)
			tt.change(t, v)
			// What the watcher reports for an outside change; a second
			// report of the server's own change must do no harm either.
			ix.Refresh([]string{strings.SplitN(tt.gone, "/", 2)[0]})
			if ok, _ := ix.HasFile(ctx, tt.gone); ok {
				t.Errorf("%q still indexed", tt.gone)
			}
			if bl, _ := ix.Backlinks(ctx, "T.md"); slices.Contains(sources(bl), tt.gone) {
				t.Errorf("backlinks(T) = %q, still from %q", sources(bl), tt.gone)
			}
			var listed []string
			ix.Files("", func(rel string) bool { listed = append(listed, rel); return true })
			if slices.Contains(listed, tt.gone) {
				t.Errorf("Files lists %q: %q", tt.gone, listed)
			}
		})
	}
}
