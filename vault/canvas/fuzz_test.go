package canvas

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// FuzzParse: any input either parses or is refused as ErrInvalid, never
// panics, and a parsed canvas has the nodes and edges encoding/json sees.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"nodes":[{"id":"a","type":"text","text":"[[x]]","x":0,"y":0,"width":1,"height":1}],"edges":[]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := Parse(src)
		if err != nil {
			return
		}
		_ = c.Check()
		_ = c.FileLinks()
		_ = c.TextLinks()
		var doc struct {
			Nodes []json.RawMessage `json:"nodes"`
			Edges []json.RawMessage `json:"edges"`
		}
		if json.Unmarshal(src, &doc) != nil {
			return // e.g. an empty file, or a node list holding null
		}
		if len(doc.Nodes) != len(c.Nodes) || len(doc.Edges) != len(c.Edges) {
			t.Fatalf("nodes %d/%d edges %d/%d", len(c.Nodes), len(doc.Nodes), len(c.Edges), len(doc.Edges))
		}
	})
}

// FuzzRewrite: rewriting every file node's path and every text node's
// text keeps the JSON valid, and the document decodes to the original
// with exactly those strings changed.
func FuzzRewrite(f *testing.F) {
	f.Add([]byte("{\n\t\"nodes\":[\n\t\t{\"id\":\"a\",\"type\":\"file\",\"file\":\"Idea.md\",\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"u\":{\"file\":1}}\n\t]\n}"), "Ideas/Big \"Idea\".md")
	f.Fuzz(func(t *testing.T, src []byte, repl string) {
		c, err := Parse(src)
		if err != nil || c.root == nil {
			return
		}
		var sets []Set
		for i, n := range c.Nodes {
			for _, k := range []string{"file", "text"} {
				if v := n.v.get(k); v != nil && v.kind == '"' {
					sets = append(sets, Set{Node: i, Key: k, Value: repl + n.ID})
				}
			}
		}
		slices.SortFunc(sets, func(a, b Set) int { return c.Nodes[a.Node].v.get(a.Key).start - c.Nodes[b.Node].v.get(b.Key).start })
		out, err := c.WithStrings(sets)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON:\n%s", out)
		}
		var want, got any
		if json.Unmarshal(src, &want) != nil {
			return
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		nodes, _ := want.(map[string]any)["nodes"].([]any)
		for _, s := range sets {
			if obj, ok := nodes[s.Node].(map[string]any); ok {
				obj[s.Key] = s.Value
			}
		}
		if !reflect.DeepEqual(fixUTF8(want), got) {
			t.Fatalf("decoded differently:\nsrc %s\nout %s", src, out)
		}
		// Outside the rewritten tokens, the bytes are the same.
		last := 0
		rest := out
		for _, s := range sets {
			v := c.Nodes[s.Node].v.get(s.Key)
			gap := src[last:v.start]
			if len(rest) < len(gap) || string(rest[:len(gap)]) != string(gap) {
				t.Fatalf("bytes before %d changed", v.start)
			}
			rest = rest[len(gap)+len(encodeString(s.Value)):]
			last = v.end
		}
		if string(rest) != string(src[last:]) {
			t.Fatal("bytes after the last token changed")
		}
	})
}

// fixUTF8 is v as encoding/json would decode it again: a value set from
// a fuzzed string holds invalid UTF-8, which decodes as U+FFFD.
func fixUTF8(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// FuzzEdit: an edit that is accepted leaves a canvas that parses, with no
// problem it did not have before, and the nodes it did not touch as
// they were.
func FuzzEdit(f *testing.F) {
	f.Add([]byte(`{"nodes":[{"id":"a","type":"text","text":"t","x":0,"y":0,"width":1,"height":1},{"id":"b","type":"file","file":"x.md","x":0,"y":0,"width":1,"height":1}],"edges":[{"id":"e","fromNode":"a","toNode":"b"}]}`), "new text", 3.5, true)
	f.Fuzz(func(t *testing.T, src []byte, text string, x float64, remove bool) {
		c, err := Parse(src)
		if err != nil || len(c.Nodes) == 0 {
			return
		}
		first := c.Nodes[0].ID
		e := Edits{
			UpdateNodes: []Fields{{"id": first, "text": text, "x": x}},
			AddNodes:    []Fields{{"type": "text", "text": text}},
		}
		if remove && len(c.Nodes) > 1 {
			e.RemoveNodes = []string{c.Nodes[len(c.Nodes)-1].ID}
		}
		out, _, err := Edit(src, e)
		if err != nil {
			return
		}
		after, err := Parse(out)
		if err != nil {
			t.Fatalf("edit made an invalid canvas: %v\n%s", err, out)
		}
		before := c.Check()
		for _, p := range after.Check() {
			if !slices.Contains(before, p) {
				t.Fatalf("edit added a problem %q\n%s", p, out)
			}
		}
		for _, n := range c.Nodes[1:] {
			if remove && n.ID == e.RemoveNodes[0] || n.ID == first {
				continue
			}
			m := after.NodeByID(n.ID)
			if m == nil || string(out[m.v.start:m.v.end]) != string(src[n.v.start:n.v.end]) {
				t.Fatalf("node %q changed", n.ID)
			}
		}
	})
}
