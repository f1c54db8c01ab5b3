package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// e2eBoard is a canvas as Obsidian writes one, with what a rewrite must
// keep: tabs, key order, a number written with a fraction, a key no spec
// defines, an edge. It shows Idea.md as a file card and links it from a
// text card, and shows a note that is gone.
const e2eBoard = "{\n" +
	"\t\"nodes\":[\n" +
	"\t\t{\"id\":\"5a1c0d2e3f405162\",\"type\":\"file\",\"file\":\"Idea.md\",\"subpath\":\"#Plan\",\"x\":-120.5,\"y\":0,\"width\":400,\"height\":400,\"color\":\"4\"},\n" +
	"\t\t{\"id\":\"7b2d1e3f40516273\",\"type\":\"text\",\"text\":\"Why: see [[Idea]]\\nand <b>more</b>\",\"x\":400,\"y\":0,\"width\":250,\"height\":60,\"x-plugin\":{\"pinned\":true}},\n" +
	"\t\t{\"id\":\"9c3e2f4051627384\",\"type\":\"file\",\"file\":\"Gone.md\",\"x\":800,\"y\":0,\"width\":400,\"height\":400}\n" +
	"\t],\n" +
	"\t\"edges\":[\n" +
	"\t\t{\"id\":\"a0b1c2d3e4f50617\",\"fromNode\":\"7b2d1e3f40516273\",\"fromSide\":\"left\",\"toNode\":\"5a1c0d2e3f405162\",\"toSide\":\"right\"}\n" +
	"\t]\n" +
	"}"

// TestCanvasFollowsRename: a canvas's file card is a backlink of the note
// it shows, its card for a deleted note is a broken link, and renaming
// the note rewrites the card and the text card's link in the rename's
// commit, leaving every other byte of the canvas as it was; the base
// beside it lists the note at its new path.
func TestCanvasFollowsRename(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{
		"Idea.md":             "---\nstatus: open\n---\n# Plan\nThe idea.\n",
		"Boards/Ideas.canvas": e2eBoard,
		"Boards/Open.base":    "filters: 'status == \"open\"'\nviews:\n  - type: table\n    name: Open\n    order: [file.name, status]\n",
	})
	s := startSession(t, v)
	if paths, _ := baseRows(t, s, map[string]any{"path": "Boards/Open.base"}); len(paths) != 1 || paths[0] != "Idea.md" {
		t.Fatalf("the base lists %q before the rename", paths)
	}

	back := s.ok(t, "get_backlinks", map[string]any{"path": "Idea.md"})
	wantContains(t, "get_backlinks", back, `"file":"Boards/Ideas.canvas"`, `"nodes":["5a1c0d2e3f405162"]`, `"Idea.md#Plan"`)
	broken := s.ok(t, "get_broken_links", map[string]any{})
	wantContains(t, "get_broken_links", broken, `"file":"Boards/Ideas.canvas"`, `"broken_links":["Gone.md"]`)
	links := s.ok(t, "find_links", map[string]any{"path": "Idea.md", "direction": "backlinks"})
	wantContains(t, "find_links", links, `"canvas_text_links":[{"canvas":"Boards/Ideas.canvas","node":"7b2d1e3f40516273","link":"Idea","path":"Idea.md"}]`)

	renamed := s.ok(t, "rename_file", map[string]any{"old_path": "Idea.md", "new_path": "Ideas/Big Idea.md"})
	wantContains(t, "rename_file", renamed, "and 2 in 1 canvas")
	got := v.read(t, "Boards/Ideas.canvas")
	var doc struct {
		Nodes []map[string]any `json:"nodes"`
		Edges []map[string]any `json:"edges"`
	}
	if err := json.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatalf("the canvas is no longer JSON: %v\n%s", err, got)
	}
	if f := doc.Nodes[0]["file"]; f != "Ideas/Big Idea.md" {
		t.Errorf("file card shows %v", f)
	}
	if text := doc.Nodes[1]["text"]; text != "Why: see [[Big Idea]]\nand <b>more</b>" {
		t.Errorf("text card reads %q", text)
	}
	if len(doc.Edges) != 1 || doc.Nodes[2]["file"] != "Gone.md" {
		t.Errorf("canvas changed elsewhere: %+v", doc)
	}
	// Outside the two strings, byte for byte.
	want := strings.Replace(e2eBoard, `"file":"Idea.md"`, `"file":"Ideas/Big Idea.md"`, 1)
	want = strings.Replace(want, `see [[Idea]]`, `see [[Big Idea]]`, 1)
	if got != want {
		t.Errorf("canvas bytes:\n%s\nwant\n%s", got, want)
	}
	if show := v.gitRun(t, "show", "--name-only", "--format=%s", "HEAD"); !strings.Contains(show, "Boards/Ideas.canvas") || !strings.Contains(show, "Ideas/Big Idea.md") {
		t.Errorf("the rename's commit lacks the canvas:\n%s", show)
	}
	back = s.ok(t, "get_backlinks", map[string]any{"path": "Ideas/Big Idea.md"})
	wantContains(t, "get_backlinks after rename", back, `"file":"Boards/Ideas.canvas"`, `"nodes":["5a1c0d2e3f405162"]`)
	if paths, values := baseRows(t, s, map[string]any{"path": "Boards/Open.base"}); len(paths) != 1 || paths[0] != "Ideas/Big Idea.md" || values[0]["file.name"] != "Big Idea.md" {
		t.Errorf("the base lists %q %v after the rename", paths, values)
	}

	// As an MCP resource, a canvas is JSON text.
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var req mcp.ReadResourceRequest
	req.Params.URI = "vault:///Boards/Ideas.canvas"
	res, err := s.c.ReadResource(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := res.Contents[0].(mcp.TextResourceContents); !ok || c.MIMEType != "application/json" || c.Text != got {
		t.Errorf("canvas resource: %+v", res.Contents[0])
	}

	// The canvas tools, through the binary.
	read := s.ok(t, "read_canvas", map[string]any{"path": "Boards/Ideas.canvas"})
	wantContains(t, "read_canvas", read, "3 nodes, 1 edge", "5a1c0d2e3f405162 file at (-120.5, 0) 400x400: Ideas/Big Idea.md#Plan")
	edited := s.ok(t, "edit_canvas", map[string]any{"path": "Boards/Ideas.canvas", "remove_nodes": []string{"9c3e2f4051627384"}})
	wantContains(t, "edit_canvas", edited, "0 added, 0 updated, 1 removed")
	if broken := s.ok(t, "get_broken_links", map[string]any{}); strings.Contains(broken, "Ideas.canvas") {
		t.Errorf("the removed card is still a broken link: %s", broken)
	}

	// A canvas Obsidian saves behind the server's back reaches the index.
	v.write(t, "Boards/Later.canvas", `{"nodes":[{"id":"1","type":"file","file":"Ideas/Big Idea.md","x":0,"y":0,"width":400,"height":400}]}`)
	t.Logf("outside canvas in the backlinks after %s", eventually(t, s, "Big Idea", "Boards/Later.canvas"))
}
