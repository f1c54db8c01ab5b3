// Package canvas reads and edits JSON Canvas files (Obsidian's .canvas,
// the open JSON Canvas 1.0 format) without disturbing them: every change
// is spliced into the bytes as written, so key order, indentation,
// numbers as written and keys this package does not know all stay as
// they were. See docs/canvas.md for the contract.
package canvas

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"vaultmcp/vault/markdown"
)

// Ext is the file extension of a canvas.
const Ext = ".canvas"

// MIMEType is the media type a canvas is served with: JSON Canvas has no
// registered type of its own.
const MIMEType = "application/json"

// IsCanvas reports whether rel names a canvas file.
func IsCanvas(rel string) bool {
	return strings.EqualFold(path.Ext(rel), Ext)
}

// ErrInvalid is wrapped by the error Parse returns for a file that is not
// a canvas at all (not JSON, or not a JSON object): such a file is named,
// never rewritten.
var ErrInvalid = errors.New("not a valid canvas")

// Canvas is a parsed canvas. Its nodes and edges are in the order of the
// file (for nodes, bottom to top).
type Canvas struct {
	src   []byte
	root  *value
	Nodes []Node
	Edges []Edge
}

// Node is one node of a canvas. Fields the node does not have, or has
// with a value of the wrong JSON type, are zero; Check says which.
type Node struct {
	ID   string
	Type string // "text", "file", "link" or "group"
	// X, Y, Width and Height are in pixels; the spec asks for integers,
	// but a number written otherwise is read as it is.
	X, Y, Width, Height float64
	Color               string
	Text                string // text nodes: Markdown
	File                string // file nodes: vault path of the file
	Subpath             string // file nodes: "#Heading" or "#^block"
	URL                 string // link nodes
	Label               string // groups
	Background          string // groups: path of a background image
	BackgroundStyle     string // groups: cover, ratio or repeat
	// Line is the 1-based line of the file the node starts on.
	Line int

	v *value
}

// Edge is one edge of a canvas.
type Edge struct {
	ID               string
	FromNode, ToNode string
	FromSide, ToSide string // top, right, bottom or left; "" when unset
	FromEnd, ToEnd   string // none or arrow; "" when unset
	Color, Label     string
	Line             int
	v                *value
}

// Parse reads a canvas. An empty file is an empty canvas, as Obsidian
// treats it. An error wraps ErrInvalid: the file is not JSON, or its top
// level is not an object, or its nodes or edges are not arrays.
func Parse(src []byte) (*Canvas, error) {
	if len(strings.TrimSpace(string(src))) == 0 {
		return &Canvas{src: src}, nil
	}
	root, err := scan(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if root.kind != '{' {
		return nil, fmt.Errorf("%w: the top level is not a JSON object", ErrInvalid)
	}
	c := &Canvas{src: src, root: root}
	lines := lineCounter{src: src}
	if nodes := root.get("nodes"); nodes != nil {
		if nodes.kind != '[' {
			return nil, fmt.Errorf("%w: \"nodes\" is not an array", ErrInvalid)
		}
		c.Nodes = make([]Node, len(nodes.elems))
		for i, v := range nodes.elems {
			c.Nodes[i] = readNode(src, v)
			c.Nodes[i].Line = lines.at(v.start)
		}
	}
	if edges := root.get("edges"); edges != nil {
		if edges.kind != '[' {
			return nil, fmt.Errorf("%w: \"edges\" is not an array", ErrInvalid)
		}
		c.Edges = make([]Edge, len(edges.elems))
		for i, v := range edges.elems {
			c.Edges[i] = readEdge(src, v)
			c.Edges[i].Line = lines.at(v.start)
		}
	}
	return c, nil
}

// Bytes returns the canvas as written.
func (c *Canvas) Bytes() []byte { return c.src }

// NodeByID returns the first node with the id, or nil.
func (c *Canvas) NodeByID(id string) *Node {
	for i := range c.Nodes {
		if c.Nodes[i].ID == id {
			return &c.Nodes[i]
		}
	}
	return nil
}

func readNode(src []byte, v *value) Node {
	n := Node{v: v}
	if v.kind != '{' {
		return n
	}
	for _, m := range v.members {
		switch m.key {
		case "id":
			n.ID = str(src, m.val)
		case "type":
			n.Type = str(src, m.val)
		case "x":
			n.X = num(src, m.val)
		case "y":
			n.Y = num(src, m.val)
		case "width":
			n.Width = num(src, m.val)
		case "height":
			n.Height = num(src, m.val)
		case "color":
			n.Color = str(src, m.val)
		case "text":
			n.Text = str(src, m.val)
		case "file":
			n.File = str(src, m.val)
		case "subpath":
			n.Subpath = str(src, m.val)
		case "url":
			n.URL = str(src, m.val)
		case "label":
			n.Label = str(src, m.val)
		case "background":
			n.Background = str(src, m.val)
		case "backgroundStyle":
			n.BackgroundStyle = str(src, m.val)
		}
	}
	return n
}

func readEdge(src []byte, v *value) Edge {
	e := Edge{v: v}
	if v.kind != '{' {
		return e
	}
	for _, m := range v.members {
		switch m.key {
		case "id":
			e.ID = str(src, m.val)
		case "fromNode":
			e.FromNode = str(src, m.val)
		case "toNode":
			e.ToNode = str(src, m.val)
		case "fromSide":
			e.FromSide = str(src, m.val)
		case "toSide":
			e.ToSide = str(src, m.val)
		case "fromEnd":
			e.FromEnd = str(src, m.val)
		case "toEnd":
			e.ToEnd = str(src, m.val)
		case "color":
			e.Color = str(src, m.val)
		case "label":
			e.Label = str(src, m.val)
		}
	}
	return e
}

// str is the text of a string value, "" for any other kind.
func str(src []byte, v *value) string {
	if v == nil || v.kind != '"' {
		return ""
	}
	return decodeString(src[v.start:v.end])
}

// num is the value of a number, 0 for any other kind.
func num(src []byte, v *value) float64 {
	if v == nil || v.kind != '0' {
		return 0
	}
	// json.Valid passed: the token is a JSON number, which ParseFloat
	// reads (one out of float64's range reads as ±Inf, as JSON.parse).
	f, _ := strconv.ParseFloat(string(src[v.start:v.end]), 64)
	return f
}

// lineCounter turns increasing offsets into 1-based lines, counting each
// byte once.
type lineCounter struct {
	src       []byte
	off, line int
}

func (l *lineCounter) at(off int) int {
	if l.line == 0 {
		l.line = 1
	}
	if off < l.off { // not increasing: count again
		l.off, l.line = 0, 1
	}
	for ; l.off < off && l.off < len(l.src); l.off++ {
		if l.src[l.off] == '\n' {
			l.line++
		}
	}
	return l.line
}

// FileLink is a file node: a link from the canvas to a file, as
// Obsidian's link cache has it.
type FileLink struct {
	Node    string // the node's id
	File    string // vault path, as written
	Subpath string // "#Heading", "#^block" or ""
	Line    int    // the line of the node's "file" value
}

// FileLinks returns the canvas's file nodes with a file, in order.
func (c *Canvas) FileLinks() []FileLink {
	var out []FileLink
	lines := lineCounter{src: c.src}
	for _, n := range c.Nodes {
		if n.Type != "file" || n.File == "" {
			continue
		}
		out = append(out, FileLink{Node: n.ID, File: n.File, Subpath: n.Subpath, Line: lines.at(n.v.get("file").start)})
	}
	return out
}

// TextLink is a link typed in a text node. Obsidian does not count these
// in its link cache; they are listed apart, and renames rewrite them.
type TextLink struct {
	Node string        // the text node's id
	Link markdown.Link // offsets are within the node's text
	Line int           // the line of the node's "text" value
}

// TextLinks returns the links to files in the canvas's text nodes, in
// order (links to a heading of the card itself are left out).
func (c *Canvas) TextLinks() []TextLink {
	var out []TextLink
	lines := lineCounter{src: c.src}
	for _, n := range c.Nodes {
		if n.Type != "text" || !strings.ContainsAny(n.Text, "[") {
			continue
		}
		line := lines.at(n.v.get("text").start)
		for _, l := range markdown.Parse([]byte(n.Text)).Links {
			if l.Target != "" {
				out = append(out, TextLink{Node: n.ID, Link: l, Line: line})
			}
		}
	}
	return out
}

// Groups returns, for each node, the id of the innermost group whose
// bounds hold the node's bounds ("" when none), as Obsidian decides
// membership: by position, not by anything written in the file. It looks
// at every pair of nodes: a page of nodes asks GroupOf for its own.
func (c *Canvas) Groups() []string {
	out := make([]string, len(c.Nodes))
	for i := range c.Nodes {
		out[i] = c.GroupOf(i)
	}
	return out
}

// GroupOf is Groups' answer for the node at index i alone, in time
// proportional to the canvas's nodes.
func (c *Canvas) GroupOf(i int) string {
	n := c.Nodes[i]
	best, id := -1.0, ""
	for _, g := range c.Nodes {
		if g.Type != "group" || g.v == n.v {
			continue
		}
		if n.X >= g.X && n.Y >= g.Y && n.X+n.Width <= g.X+g.Width && n.Y+n.Height <= g.Y+g.Height {
			if area := g.Width * g.Height; best < 0 || area < best {
				best, id = area, g.ID
			}
		}
	}
	return id
}
