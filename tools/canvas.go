package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/tokens"
	"vaultmcp/vault"
	"vaultmcp/vault/canvas"
	"vaultmcp/vault/index"
)

// defaultCanvasItems is read_canvas' default page: nodes and edges
// together.
const defaultCanvasItems = 200

// maxCanvasBytes is the largest canvas the canvas tools read (the
// index's note limit).
const maxCanvasBytes = 10 << 20

// ReadCanvasArgs are read_canvas' arguments.
type ReadCanvasArgs struct {
	Path string `json:"path"`
	Paging
}

// CanvasNode is one node as read_canvas shows it.
type CanvasNode struct {
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	Color   string  `json:"color,omitempty"`
	Text    string  `json:"text,omitempty"`
	File    string  `json:"file,omitempty"`
	Subpath string  `json:"subpath,omitempty"`
	URL     string  `json:"url,omitempty"`
	Label   string  `json:"label,omitempty"`
	Group   string  `json:"group,omitempty" jsonschema:"The innermost group whose bounds hold the node"`
}

// CanvasEdge is one edge as read_canvas shows it.
type CanvasEdge struct {
	ID       string `json:"id"`
	FromNode string `json:"from_node"`
	ToNode   string `json:"to_node"`
	FromSide string `json:"from_side,omitempty"`
	ToSide   string `json:"to_side,omitempty"`
	Label    string `json:"label,omitempty"`
	Color    string `json:"color,omitempty"`
}

// CanvasResult is read_canvas' answer: one page of the nodes (bottom to
// top, as the file lists them) followed by the edges.
type CanvasResult struct {
	Path      string       `json:"path"`
	Version   string       `json:"version" jsonschema:"The canvas's version: pass it as if_version to edit_canvas"`
	NodeCount int          `json:"node_count"`
	EdgeCount int          `json:"edge_count"`
	Nodes     []CanvasNode `json:"nodes"`
	Edges     []CanvasEdge `json:"edges"`
	Problems  []string     `json:"problems,omitempty" jsonschema:"Where the canvas breaks the JSON Canvas rules"`
	PageInfo
}

// ReadCanvas is read_canvas.
func ReadCanvas(d Deps) server.ServerTool {
	opts := []mcp.ToolOption{
		mcp.WithDescription("Read a canvas (.canvas): nodes (id, type, text/file/url/label, x, y, width, height, color, group) and edges, " +
			"as JSON and an outline. Paged: nodes, then edges."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Canvas path")),
	}
	opts = append(opts, pagingOptions("items", defaultCanvasItems)...)
	opts = append(opts, annotate("Read canvas", true, false, true))
	tool := mcp.NewTool("read_canvas", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a ReadCanvasArgs) (*mcp.CallToolResult, error) {
		res, err := ReadCanvasOf(ctx, d, a)
		if err != nil {
			return nil, err
		}
		return structuredResult(res, canvasOutline(res))
	})}
}

// ReadCanvasOf is read_canvas' work.
func ReadCanvasOf(ctx context.Context, d Deps, a ReadCanvasArgs) (*CanvasResult, error) {
	if !canvas.IsCanvas(a.Path) {
		return nil, invalid(fmt.Sprintf("%s is not a canvas: give the path of a %s file", a.Path, canvas.Ext))
	}
	f, err := d.Vault.ReadFile(ctx, a.Path, maxCanvasBytes+1)
	if err != nil {
		return nil, err
	}
	if f.Truncated {
		return nil, invalid(fmt.Sprintf("%s is larger than %d bytes, the most the canvas tools read", f.Path.Rel, maxCanvasBytes))
	}
	c, err := canvas.Parse(f.Data)
	if err != nil {
		return nil, invalid(fmt.Sprintf("%s: %v", f.Path.Rel, err))
	}
	res := &CanvasResult{Path: f.Path.Rel, Version: vault.Version(f.Data), NodeCount: len(c.Nodes), EdgeCount: len(c.Edges),
		Nodes: []CanvasNode{}, Edges: []CanvasEdge{}, Problems: c.Check()}
	total := len(c.Nodes) + len(c.Edges)
	item := func(i int) any {
		if i < len(c.Nodes) {
			n := c.Nodes[i]
			return CanvasNode{ID: n.ID, Type: n.Type, X: n.X, Y: n.Y, Width: n.Width, Height: n.Height, Color: n.Color,
				Text: n.Text, File: n.File, Subpath: n.Subpath, URL: n.URL, Label: n.Label, Group: c.GroupOf(i)}
		}
		e := c.Edges[i-len(c.Nodes)]
		return CanvasEdge{ID: e.ID, FromNode: e.FromNode, ToNode: e.ToNode, FromSide: e.FromSide, ToSide: e.ToSide, Label: e.Label, Color: e.Color}
	}
	s := paginate(a.Paging, total, defaultCanvasItems, "nodes and edges")
	// An item is shown twice, as JSON and as a line of the outline; the
	// JSON is the larger, and what a page is sized by.
	s = s.fit(a.Paging, d.pageTokens(), func(i int) int {
		b, _ := json.Marshal(item(s.Start + i))
		return tokens.Estimate(string(b)) + 1
	})
	for i := s.Start; i < s.End; i++ {
		switch x := item(i).(type) {
		case CanvasNode:
			res.Nodes = append(res.Nodes, x)
		case CanvasEdge:
			res.Edges = append(res.Edges, x)
		}
	}
	res.PageInfo = s.info()
	return res, nil
}

// canvasOutline is read_canvas' text: one line per node and edge.
func canvasOutline(res *CanvasResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s (version %s)\n", res.Path, plural(res.NodeCount, "node"), plural(res.EdgeCount, "edge"), res.Version)
	for _, n := range res.Nodes {
		what := n.Text
		switch n.Type {
		case "file":
			what = n.File + n.Subpath
		case "link":
			what = n.URL
		case "group":
			what = n.Label
		}
		if len(what) > 80 {
			what = trimPartialRuneString(what[:80]) + "…"
		}
		what = strings.ReplaceAll(what, "\n", " ⏎ ")
		fmt.Fprintf(&b, "- %s %s at (%g, %g) %gx%g", n.ID, n.Type, n.X, n.Y, n.Width, n.Height)
		if n.Group != "" {
			fmt.Fprintf(&b, " in %s", n.Group)
		}
		fmt.Fprintf(&b, ": %s\n", what)
	}
	for _, e := range res.Edges {
		fmt.Fprintf(&b, "- edge %s: %s -> %s", e.ID, e.FromNode, e.ToNode)
		if e.Label != "" {
			fmt.Fprintf(&b, " %q", e.Label)
		}
		b.WriteByte('\n')
	}
	for _, p := range res.Problems {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	if res.Notice != "" {
		fmt.Fprintf(&b, "[%s]\n", res.Notice)
	}
	return b.String()
}

// trimPartialRuneString drops a rune cut in half at the end of s.
func trimPartialRuneString(s string) string { return string(trimPartialRune([]byte(s))) }

// EditCanvasArgs are edit_canvas' arguments.
type EditCanvasArgs struct {
	Path        string           `json:"path"`
	AddNodes    []map[string]any `json:"add_nodes"`
	UpdateNodes []map[string]any `json:"update_nodes"`
	RemoveNodes []string         `json:"remove_nodes"`
	AddEdges    []map[string]any `json:"add_edges"`
	UpdateEdges []map[string]any `json:"update_edges"`
	RemoveEdges []string         `json:"remove_edges"`
}

// EditCanvasResult is edit_canvas' answer.
type EditCanvasResult struct {
	Path     string   `json:"path"`
	Commit   string   `json:"commit,omitempty"`
	Version  string   `json:"version" jsonschema:"The canvas's new version"`
	Created  bool     `json:"created,omitempty" jsonschema:"The canvas did not exist and was made"`
	Added    []string `json:"added,omitempty" jsonschema:"Ids of the nodes and edges added, in order"`
	Updated  []string `json:"updated,omitempty"`
	Removed  []string `json:"removed,omitempty" jsonschema:"Ids removed, with the edges of removed nodes"`
	Problems []string `json:"problems,omitempty" jsonschema:"Problems the canvas already had, left as they were"`
}

// maxCanvasEdits is the most changes one edit_canvas call makes.
const maxCanvasEdits = 1000

// EditCanvas is edit_canvas.
func EditCanvas(d Deps) server.ServerTool {
	obj := mcp.Items(map[string]any{"type": "object"})
	opts := []mcp.ToolOption{
		mcp.WithDescription("Change a canvas's nodes and edges by id, in one commit; the rest of the file stays byte for byte. " +
			"Refused if it breaks JSON Canvas rules (unique ids, types text/file/link/group, required fields, edges between nodes). " +
			"Ids, position and size default as in Obsidian; a removed node takes its edges; a missing canvas is created."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Canvas path")),
		mcp.WithArray("add_nodes", obj, mcp.Description(`JSON Canvas nodes: {"type":"text","text":"…"}, {"type":"file","file":"A.md","subpath":"#H"}, link (url), group (label)`)),
		mcp.WithArray("update_nodes", obj, mcp.Description(`{"id":…, field: value}; null removes a field`)),
		mcp.WithArray("remove_nodes", mcp.WithStringItems(), mcp.Description("Ids")),
		mcp.WithArray("add_edges", obj, mcp.Description(`{"fromNode":…,"toNode":…}, optional fromSide, toSide, label…`)),
		mcp.WithArray("update_edges", obj, mcp.Description("As update_nodes")),
		mcp.WithArray("remove_edges", mcp.WithStringItems(), mcp.Description("Ids")),
		annotate("Edit canvas", false, true, false),
	}
	tool := mcp.NewTool("edit_canvas", opts...)
	return server.ServerTool{Tool: tool, Handler: handle(d, func(ctx context.Context, a EditCanvasArgs) (*mcp.CallToolResult, error) {
		res, err := EditCanvasOf(ctx, d, a)
		if err != nil {
			return nil, err
		}
		msg := fmt.Sprintf("Edited %s: %d added, %d updated, %d removed%s", res.Path, len(res.Added), len(res.Updated), len(res.Removed), commitNote(res.Commit))
		if res.Created {
			msg = fmt.Sprintf("Created %s: %d added%s", res.Path, len(res.Added), commitNote(res.Commit))
		}
		if len(res.Added) > 0 {
			msg += "; new ids: " + strings.Join(res.Added, ", ")
		}
		if len(res.Problems) > 0 {
			msg += "; problems it already had, left alone: " + strings.Join(res.Problems, "; ")
		}
		return structuredResult(res, msg)
	})}
}

// EditCanvasOf is edit_canvas' work.
func EditCanvasOf(ctx context.Context, d Deps, a EditCanvasArgs) (*EditCanvasResult, error) {
	if !canvas.IsCanvas(a.Path) {
		return nil, invalid(fmt.Sprintf("%s is not a canvas: give the path of a %s file", a.Path, canvas.Ext))
	}
	e := canvas.Edits{RemoveNodes: a.RemoveNodes, RemoveEdges: a.RemoveEdges}
	for _, l := range []struct {
		in  []map[string]any
		out *[]canvas.Fields
	}{{a.AddNodes, &e.AddNodes}, {a.UpdateNodes, &e.UpdateNodes}, {a.AddEdges, &e.AddEdges}, {a.UpdateEdges, &e.UpdateEdges}} {
		for _, f := range l.in {
			*l.out = append(*l.out, canvas.Fields(f))
		}
	}
	switch n := e.Len(); {
	case n == 0:
		return nil, invalid("nothing to do: give add_nodes, update_nodes, remove_nodes, add_edges, update_edges or remove_edges")
	case n > maxCanvasEdits:
		return nil, invalid(fmt.Sprintf("%d changes in one call; at most %d", n, maxCanvasEdits))
	}
	for _, f := range append(append([]canvas.Fields{}, e.UpdateNodes...), e.UpdateEdges...) {
		if id, _ := f["id"].(string); id == "" {
			return nil, invalid(`each update needs the "id" of the node or edge it changes`)
		}
	}
	res := &EditCanvasResult{}
	var out []byte
	change := func(src []byte) ([]byte, error) {
		b, o, err := canvas.Edit(src, e)
		if errors.Is(err, canvas.ErrInvalid) {
			return nil, invalid(fmt.Sprintf("%s is left as it is: %v", a.Path, err))
		}
		if errors.Is(err, canvas.ErrRejected) {
			return nil, invalid(err.Error() + "; nothing was written")
		}
		if err != nil {
			return nil, err
		}
		res.Added, res.Updated, res.Removed, res.Problems = o.Added, o.Updated, o.Removed, o.Problems
		out = b
		return b, nil
	}
	w, err := d.Vault.ModifyFile(ctx, a.Path, func(rel string) string { return "edit canvas " + rel }, change)
	if errors.Is(err, vault.ErrNotFound) {
		b, cerr := change(nil)
		if cerr != nil {
			return nil, cerr
		}
		res.Created = true
		w, err = d.Vault.CreateFile(ctx, a.Path, func(rel string) string { return "create canvas " + rel }, b)
	}
	if err != nil {
		return nil, err
	}
	res.Path, res.Commit, res.Version = w.Path.Rel, w.Commit, vault.Version(out)
	return res, nil
}

// canvasRelinkNote is what rename_file's answer says of the canvases it
// relinked and of those it left alone.
func canvasRelinkNote(r index.Relinked) string {
	var msg string
	switch {
	case r.Canvases == 1:
		msg = fmt.Sprintf(" and %d in 1 canvas", r.CanvasLinks)
	case r.Canvases > 1:
		msg = fmt.Sprintf(" and %d in %s canvases", r.CanvasLinks, count(r.Canvases))
	}
	if len(r.LeftAlone) > 0 {
		msg += fmt.Sprintf("; left alone, not being valid JSON (fix them by hand if they show the file): %s", strings.Join(r.LeftAlone, ", "))
	}
	return msg
}

// canvasTextItems are text-card links as find_links lists them.
func canvasTextItems(links []index.CanvasTextLink) []CanvasTextLinkItem {
	out := make([]CanvasTextLinkItem, 0, len(links))
	for _, l := range links {
		item := CanvasTextLinkItem{Canvas: l.Canvas, Node: l.Node, Link: l.Link}
		if l.Target != "" {
			item.Path = &l.Target
		}
		out = append(out, item)
	}
	return out
}

// s0 is where the page p asks for starts in a list of total items.
func s0(p Paging, total int) int { return min(max(p.Offset, 0), total) }
