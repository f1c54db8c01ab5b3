package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"vaultmcp/tools"
	"vaultmcp/vault/canvas"
	"vaultmcp/vault/index"
)

const toolBoard = "{\n\t\"nodes\":[\n" +
	"\t\t{\"id\":\"g1\",\"type\":\"group\",\"x\":-10,\"y\":-10,\"width\":500,\"height\":500,\"label\":\"Ideas\"},\n" +
	"\t\t{\"id\":\"f1\",\"type\":\"file\",\"file\":\"Idea.md\",\"x\":0,\"y\":0,\"width\":400,\"height\":400},\n" +
	"\t\t{\"id\":\"t1\",\"type\":\"text\",\"text\":\"see [[Idea]]\",\"x\":600,\"y\":0,\"width\":250,\"height\":60}\n" +
	"\t],\n\t\"edges\":[\n\t\t{\"id\":\"e1\",\"fromNode\":\"t1\",\"toNode\":\"f1\",\"label\":\"about\"}\n\t]\n}\n"

func TestReadCanvasTool(t *testing.T) {
	h := newHarness(t, 0)
	h.file("Board.canvas", toolBoard)
	h.file("Bad.canvas", "{oops")
	text, sc := h.structured("read_canvas", `{"path":"Board.canvas"}`)
	var res tools.CanvasResult
	raw, _ := json.Marshal(sc)
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.NodeCount != 3 || res.EdgeCount != 1 || len(res.Nodes) != 3 || res.Nodes[1].Group != "g1" || res.Nodes[2].Group != "" || res.Edges[0].Label != "about" {
		t.Errorf("result %+v", res)
	}
	for _, want := range []string{"- f1 file at (0, 0) 400x400 in g1: Idea.md", "- edge e1: t1 -> f1 \"about\""} {
		if !strings.Contains(text, want) {
			t.Errorf("outline lacks %q:\n%s", want, text)
		}
	}
	_, sc = h.structured("read_canvas", `{"path":"Board.canvas","limit":2,"offset":2}`)
	if nodes := sc["nodes"].([]any); len(nodes) != 1 || sc["edges"].([]any)[0].(map[string]any)["id"] != "e1" {
		t.Errorf("second page %v", sc)
	}
	h.fails("read_canvas", `{"path":"Bad.canvas"}`, "Bad.canvas", "not valid JSON")
	h.fails("edit_canvas", `{"path":"Bad.canvas","add_nodes":[{"type":"text","text":"x"}]}`, "Bad.canvas is left as it is", "line 1, column 2")
	if h.read("Bad.canvas") != "{oops" {
		t.Error("an invalid canvas was rewritten")
	}
	h.fails("read_canvas", `{"path":"Idea.md"}`, "not a canvas")
}

func TestEditCanvasTool(t *testing.T) {
	h := newHarness(t, 0)
	h.file("Board.canvas", toolBoard)
	sc := h.written("edit_canvas", `{"path":"Board.canvas","add_nodes":[{"type":"text","text":"new"}],"update_nodes":[{"id":"t1","color":"4"}],"remove_edges":["e1"]}`)
	added := sc["added"].([]any)
	if len(added) != 1 || len(added[0].(string)) != 16 {
		t.Fatalf("answer %v", sc)
	}
	got := h.read("Board.canvas")
	want := strings.Replace(toolBoard, `"height":60}`, `"height":60,"color":"4"},`+"\n\t\t"+`{"id":"`+added[0].(string)+`","type":"text","text":"new","x":890,"y":-10,"width":250,"height":60}`, 1)
	want = strings.Replace(want, "\"edges\":[\n\t\t{\"id\":\"e1\",\"fromNode\":\"t1\",\"toNode\":\"f1\",\"label\":\"about\"}\n\t]", "\"edges\":[]", 1)
	if got != want {
		t.Errorf("canvas:\n%s\nwant\n%s", got, want)
	}
	h.fails("edit_canvas", `{"path":"Board.canvas","add_edges":[{"fromNode":"f1","toNode":"zz"}]}`, `toNode "zz" is no node`, "nothing was written")
	h.fails("edit_canvas", `{"path":"Board.canvas","if_version":"0000000000000000000000000000000000000000","remove_nodes":["f1"]}`, "version")
	if h.read("Board.canvas") != got {
		t.Error("a refused edit wrote")
	}
	// A new canvas is made.
	sc = h.written("edit_canvas", `{"path":"New.canvas","add_nodes":[{"id":"a","type":"link","url":"https://example.com"}]}`)
	if sc["created"] != true {
		t.Errorf("answer %v", sc)
	}
	c, err := canvas.Parse([]byte(h.read("New.canvas")))
	if err != nil || len(c.Nodes) != 1 || len(c.Check()) != 0 {
		t.Errorf("new canvas %v %v", c, err)
	}
}

// rename_file relinks canvases in its commit and says so.
func TestRenameRelinksCanvas(t *testing.T) {
	var ix *index.Index
	h := newDepsHarness(t, func(d *tools.Deps) {
		ix = index.New(d.Vault, nil)
		d.Index = ix
		d.Vault.Observe(ix.Changed)
	})
	h.file("Idea.md", "# Idea\n")
	h.file("Board.canvas", toolBoard)
	h.file("Broken.canvas", "{[[Idea]]")
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := h.ok("rename_file", `{"old_path":"Idea.md","new_path":"Ideas/Big Idea.md"}`)
	for _, want := range []string{"updated 0 link(s) in 0 note(s) and 2 in 1 canvas", "left alone", "Broken.canvas"} {
		if !strings.Contains(got, want) {
			t.Errorf("answer lacks %q: %s", want, got)
		}
	}
	board := h.read("Board.canvas")
	if !strings.Contains(board, `"file":"Ideas/Big Idea.md"`) || !strings.Contains(board, `see [[Big Idea]]`) {
		t.Errorf("canvas:\n%s", board)
	}
	_, sc := h.structured("find_links", `{"path":"Ideas/Big Idea.md","direction":"backlinks"}`)
	if nodes := sc["canvas_nodes"].(map[string]any)["Board.canvas"].([]any); len(nodes) != 1 || nodes[0] != "f1" {
		t.Errorf("find_links %v", sc)
	}
	if tl := sc["canvas_text_links"].([]any); len(tl) != 1 || tl[0].(map[string]any)["node"] != "t1" {
		t.Errorf("find_links %v", sc)
	}
	// query_notes' link filters see a canvas's file cards.
	if got := h.ok("query_notes", `{"filter":{"links_from":"Board.canvas"}}`); !strings.Contains(got, "Ideas/Big Idea.md") {
		t.Errorf("query_notes links_from a canvas: %s", got)
	}
}

// written calls a writing tool that must succeed and returns its
// structured content; its text is followed by the file's new version.
func (h *harness) written(tool, args string) map[string]any {
	h.t.Helper()
	resp := h.rpc("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	res, _ := resp["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if _, version := splitVersion(content); res["isError"] == true || version == "" {
		h.t.Fatalf("%s %s: %v", tool, args, resp)
	}
	sc, _ := res["structuredContent"].(map[string]any)
	return sc
}

// TestReadCanvasPageGroups: a page of a big board finds its nodes'
// groups without comparing every node with every group (40,000 groups
// took 8 s for a page of 200 nodes).
func TestReadCanvasPageGroups(t *testing.T) {
	if raceOn {
		t.Skip("a timing check")
	}
	var b strings.Builder
	b.WriteString(`{"nodes":[`)
	for i := range 40000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"%016x","type":"group","x":%d,"y":%d,"width":%d,"height":%d}`, i, -i, -i, 2*i+10, 2*i+10)
	}
	b.WriteString(`],"edges":[]}`)
	h := newHarness(t, 0)
	h.file("Big.canvas", b.String())
	start := time.Now()
	_, sc := h.structured("read_canvas", `{"path":"Big.canvas","offset":10}`)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("a page took %v", took)
	}
	// Each group lies inside the next larger one.
	if n := sc["nodes"].([]any)[0].(map[string]any); n["group"] != fmt.Sprintf("%016x", 11) {
		t.Errorf("first node of the page: %v", n)
	}
}
