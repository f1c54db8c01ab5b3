package index

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vaultmcp/vault"
)

// board is a canvas showing Idea.md twice (once at a heading), a deleted
// note, and a text card linking Idea by name.
const board = "{\n\t\"nodes\":[\n" +
	"\t\t{\"id\":\"f1\",\"type\":\"file\",\"file\":\"Idea.md\",\"x\":0,\"y\":0,\"width\":400,\"height\":400,\"custom\":true},\n" +
	"\t\t{\"id\":\"f2\",\"type\":\"file\",\"file\":\"Idea.md\",\"subpath\":\"#Plan\",\"x\":500,\"y\":0,\"width\":400,\"height\":400},\n" +
	"\t\t{\"id\":\"f3\",\"type\":\"file\",\"file\":\"Gone.md\",\"x\":1000,\"y\":0,\"width\":400,\"height\":400},\n" +
	"\t\t{\"id\":\"t1\",\"type\":\"text\",\"text\":\"see [[Idea]] and [it](Idea.md)\",\"x\":0,\"y\":500,\"width\":250,\"height\":60}\n" +
	"\t],\n\t\"edges\":[]\n}\n"

func TestCanvasLinks(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"Idea.md":            "# Plan\n",
		"Other.md":           "[[Idea]]",
		"Boards/Main.canvas": board,
		"Bad.canvas":         "{not json Idea",
	})
	bl, err := ix.Backlinks(ctx, "Idea.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := sources(bl); !reflect.DeepEqual(got, []string{"Boards/Main.canvas", "Other.md"}) {
		t.Fatalf("backlinks %v", got)
	}
	if bl[0].Count != 2 || !reflect.DeepEqual(bl[0].Nodes, []string{"f1", "f2"}) || !reflect.DeepEqual(bl[0].Links, []string{"Idea.md", "Idea.md#Plan", "Gone.md"}) {
		t.Errorf("canvas backlink %+v", bl[0])
	}
	total, page, err := ix.Linkers(ctx, "Idea.md", 0, 10)
	if err != nil || total != 2 || !reflect.DeepEqual(page[0].Nodes, []string{"f1", "f2"}) || !reflect.DeepEqual(page[0].Lines, []int{3, 4}) {
		t.Errorf("linkers %d %+v %v", total, page, err)
	}
	broken, _ := ix.Broken(ctx)
	if len(broken) != 1 || broken[0].Source != "Boards/Main.canvas" || !reflect.DeepEqual(broken[0].Targets, []string{"Gone.md"}) {
		t.Errorf("broken %+v", broken)
	}
	tl, _ := ix.CanvasTextLinksTo(ctx, "Idea.md")
	if len(tl) != 2 || tl[0].Node != "t1" || tl[0].Link != "Idea" || tl[1].Link != "Idea.md" {
		t.Errorf("text links %+v", tl)
	}
	from, ok, _ := ix.CanvasTextLinksFrom(ctx, "Boards/Main.canvas")
	if !ok || len(from) != 2 || from[0].Target != "Idea.md" || from[0].Line != 6 {
		t.Errorf("text links from the canvas %+v", from)
	}
	out, ok, _ := ix.Outlinks(ctx, "Boards/Main.canvas")
	if !ok || len(out) != 2 || out[0].Path != "Idea.md" || out[1].Path != "" {
		t.Errorf("outlinks %+v", out)
	}
	if links, notes, _ := ix.DanglingAfterDelete(ctx, "Idea.md"); links != 3 || notes != 2 {
		t.Errorf("dangling %d links in %d", links, notes)
	}
	if bad, _ := ix.InvalidCanvases(ctx); len(bad) != 1 || bad[0][0] != "Bad.canvas" {
		t.Errorf("invalid %v", bad)
	}
	// A file node resolves by path only: a Gone.md elsewhere is not it.
	writeFile(t, v.Root(), "sub/Gone.md", "")
	ix.Refresh([]string{"sub/Gone.md"})
	if broken, _ := ix.Broken(ctx); len(broken) != 1 {
		t.Errorf("sub/Gone.md fixed the canvas: %+v", broken)
	}
	// The missing file appears: the canvas's link resolves.
	writeFile(t, v.Root(), "Gone.md", "")
	ix.Refresh([]string{"Gone.md"})
	if broken, _ := ix.Broken(ctx); len(broken) != 0 {
		t.Errorf("still broken %+v", broken)
	}
	// The canvas is edited: the index follows.
	writeFile(t, v.Root(), "Boards/Main.canvas", `{"nodes":[]}`)
	ix.Refresh([]string{"Boards/Main.canvas"})
	if bl, _ := ix.Backlinks(ctx, "Idea.md"); len(bl) != 1 {
		t.Errorf("after edit: %v", sources(bl))
	}
	os.Remove(filepath.Join(v.Root(), "Boards", "Main.canvas"))
	ix.Refresh([]string{"Boards"})
	if tl, _ := ix.CanvasTextLinksTo(ctx, "Idea.md"); len(tl) != 0 {
		t.Errorf("gone canvas still has text links %+v", tl)
	}
}

func TestCanvasRename(t *testing.T) {
	v, ix := newVault(t, map[string]string{
		"Idea.md":            "# Plan\n",
		"Boards/Main.canvas": board,
		"Bad.canvas":         "{not json [[Idea]]",
		"Other.canvas":       `{"nodes":[{"id":"x","type":"file","file":"Else.md","x":0,"y":0,"width":1,"height":1}]}`,
	})
	var r Relinked
	_, err := v.RenameFile(ctx, "Idea.md", "Ideas/Big Idea.md", func(tx *vault.Tx, from, to vault.Path) (err error) {
		r, err = ix.FollowRenameAll(ctx, tx, from.Rel, to.Rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Canvases != 1 || r.CanvasLinks != 4 || !reflect.DeepEqual(r.LeftAlone, []string{"Bad.canvas"}) {
		t.Errorf("relinked %+v", r)
	}
	got, _ := os.ReadFile(filepath.Join(v.Root(), "Boards", "Main.canvas"))
	want := strings.NewReplacer(`"file":"Idea.md"`, `"file":"Ideas/Big Idea.md"`,
		`see [[Idea]] and [it](Idea.md)`, `see [[Big Idea]] and [it](Ideas/Big%20Idea.md)`).Replace(board)
	if string(got) != want {
		t.Errorf("canvas:\n%s\nwant\n%s", got, want)
	}
	if bad, _ := os.ReadFile(filepath.Join(v.Root(), "Bad.canvas")); string(bad) != "{not json [[Idea]]" {
		t.Errorf("invalid canvas rewritten: %s", bad)
	}
	bl, _ := ix.Backlinks(ctx, "Ideas/Big Idea.md")
	if len(bl) != 1 || bl[0].Source != "Boards/Main.canvas" || !reflect.DeepEqual(bl[0].Nodes, []string{"f1", "f2"}) {
		t.Errorf("backlinks after rename %+v", bl)
	}
	// The refresh took the canvas as parsed beside the commit.
	if len(ix.ownCanvases) != 0 {
		t.Errorf("rewritten canvases not taken: %v", ix.ownCanvases)
	}
	if tl, _ := ix.CanvasTextLinksTo(ctx, "Ideas/Big Idea.md"); len(tl) != 2 {
		t.Errorf("text links after rename %+v", tl)
	}
}

// A vault without canvases keeps no canvas state.
func TestNoCanvasesNoCost(t *testing.T) {
	_, ix := newVault(t, map[string]string{"a.md": "[[b]]", "b.png": ""})
	if ix.canvases != nil {
		t.Error("canvas map made for a vault without canvases")
	}
}
