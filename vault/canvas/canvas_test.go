package canvas

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func sample(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/sample.canvas")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseSample(t *testing.T) {
	c, err := Parse(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Nodes) != 5 || len(c.Edges) != 1 {
		t.Fatalf("nodes %d edges %d", len(c.Nodes), len(c.Edges))
	}
	g := c.Nodes[0]
	if g.ID != "754a8ef995f366bc" || g.Type != "group" || g.X != -300 || g.Y != -460 || g.Width != 610 || g.Height != 200 || g.Label != "JSON Canvas" || g.Line != 3 {
		t.Errorf("group node: %+v", g)
	}
	if n := c.Nodes[1]; n.File != "readme.md" || n.Color != "6" {
		t.Errorf("file node: %+v", n)
	}
	if e := c.Edges[0]; e.FromNode != "7efdbbe0c4742315" || e.FromSide != "right" || e.ToSide != "left" {
		t.Errorf("edge: %+v", e)
	}
	if p := c.Check(); len(p) != 0 {
		t.Errorf("sample has problems: %v", p)
	}
	fl := c.FileLinks()
	if len(fl) != 3 || fl[0].File != "readme.md" || fl[0].Node != "8132d4d894c80022" || fl[0].Line != 4 {
		t.Errorf("file links: %+v", fl)
	}
	tl := c.TextLinks()
	var targets []string
	for _, l := range tl {
		targets = append(targets, l.Link.Target)
	}
	if !reflect.DeepEqual(targets, []string{"/docs/apps.md", "spec/1.0.md"}) {
		t.Errorf("text links: %v", targets)
	}
}

func TestParseInvalid(t *testing.T) {
	for _, src := range []string{`{"nodes":[`, `[1,2]`, `{"nodes":{}}`, `{"edges":"x"}`, `nul`} {
		if _, err := Parse([]byte(src)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: err %v, want ErrInvalid", src, err)
		}
	}
	if _, err := Parse([]byte("{\n  \"nodes\": [x]}")); err == nil || !strings.Contains(err.Error(), "line 2, column 13") {
		t.Errorf("error %v does not say where", err)
	}
	if c, err := Parse([]byte(" \n")); err != nil || len(c.Nodes) != 0 {
		t.Errorf("empty file: %v", err)
	}
}

func TestWithStringsKeepsEverythingElse(t *testing.T) {
	src := []byte("{\n\t\"nodes\":[\n\t\t{\"id\":\"a\",\"type\":\"file\",\"file\":\"Idea.md\",\"x\":1.50,\"y\":-0,\"width\":1e2,\"height\":10,\"plugin\":{\"k\":[1, 2]}},\n\t\t{\"id\":\"b\",\"type\":\"text\",\"text\":\"see [[Idea]] \\u00e9\",\"x\":0,\"y\":0,\"width\":1,\"height\":1}\n\t],\n\t\"edges\":[]\n}\n")
	c, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.WithStrings([]Set{{Node: 0, Key: "file", Value: "Ideas/Big Idea.md"}, {Node: 1, Key: "text", Value: "see [[Big Idea]] é"}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(src), `"Idea.md"`, `"Ideas/Big Idea.md"`, 1)
	want = strings.Replace(want, `"see [[Idea]] \u00e9"`, `"see [[Big Idea]] é"`, 1)
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, err := c.WithStrings([]Set{{Node: 0, Key: "x", Value: "1"}}); err == nil {
		t.Error("a number was set as a string")
	}
}

func TestEncodeStringMatchesDecoding(t *testing.T) {
	for _, s := range []string{"", "a\"b\\c", "tab\there\nnl\r\x00\x1f", "<&>", "é\u2028", "\xff"} {
		var got string
		if err := json.Unmarshal(encodeString(s), &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); got != want {
			t.Errorf("%q round-trips to %q", s, got)
		}
	}
	if got := string(encodeString("<a & b>")); got != `"<a & b>"` {
		t.Errorf("HTML escaped: %s", got)
	}
}

func TestEdit(t *testing.T) {
	base := sample(t)
	tests := []struct {
		name  string
		edits Edits
		check func(t *testing.T, before, after []byte, c *Canvas)
		err   string
	}{
		{
			name:  "add text node and edge",
			edits: Edits{AddNodes: []Fields{{"id": "n1", "type": "text", "text": "hi"}}, AddEdges: []Fields{{"fromNode": "n1", "toNode": "8132d4d894c80022"}}},
			check: func(t *testing.T, before, after []byte, c *Canvas) {
				n := c.NodeByID("n1")
				if n == nil || n.Width != 250 || n.Height != 60 || n.X != 800 || n.Y != -460 {
					t.Errorf("new node: %+v", n)
				}
				if !bytes.Contains(after, []byte("\n\t\t{\"id\":\"n1\",\"type\":\"text\",\"text\":\"hi\",\"x\":800,\"y\":-460,\"width\":250,\"height\":60}\n\t],")) {
					t.Errorf("layout:\n%s", after)
				}
				if len(c.Edges) != 2 || len(c.Edges[1].ID) != 16 {
					t.Errorf("edges: %+v", c.Edges)
				}
				if !bytes.HasPrefix(after, before[:bytes.Index(before, []byte(`{"id":"0ba5`))]) {
					t.Error("bytes before the change moved")
				}
			},
		},
		{
			name:  "remove node takes its edges",
			edits: Edits{RemoveNodes: []string{"7efdbbe0c4742315"}},
			check: func(t *testing.T, before, after []byte, c *Canvas) {
				if len(c.Nodes) != 4 || len(c.Edges) != 0 {
					t.Errorf("nodes %d edges %d", len(c.Nodes), len(c.Edges))
				}
				if !bytes.Contains(after, []byte("\"edges\":[]")) {
					t.Errorf("edges array:\n%s", after)
				}
			},
		},
		{
			name:  "remove last node",
			edits: Edits{RemoveNodes: []string{"0ba565e7f30e0652"}},
			check: func(t *testing.T, before, after []byte, c *Canvas) {
				if !bytes.Contains(after, []byte("\"height\":160}\n\t],")) {
					t.Errorf("layout:\n%s", after)
				}
			},
		},
		{
			name:  "update sets, adds and removes keys",
			edits: Edits{UpdateNodes: []Fields{{"id": "8132d4d894c80022", "x": 5.0, "color": nil, "subpath": "#Intro"}}},
			check: func(t *testing.T, before, after []byte, c *Canvas) {
				want := `{"id":"8132d4d894c80022","type":"file","file":"readme.md","x":5,"y":-200,"width":570,"height":560,"subpath":"#Intro"}`
				if !bytes.Contains(after, []byte(want)) {
					t.Errorf("got:\n%s", after)
				}
			},
		},
		{name: "edge to missing node", edits: Edits{AddEdges: []Fields{{"fromNode": "nope", "toNode": "8132d4d894c80022"}}}, err: `fromNode "nope" is no node`},
		{name: "duplicate id", edits: Edits{AddNodes: []Fields{{"id": "8132d4d894c80022", "type": "text", "text": "x"}}}, err: "already used"},
		{name: "unknown type", edits: Edits{AddNodes: []Fields{{"type": "video", "x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0}}}, err: `unknown type "video"`},
		{name: "missing text", edits: Edits{AddNodes: []Fields{{"type": "text"}}}, err: `required field "text" is missing`},
		{name: "unknown id", edits: Edits{UpdateNodes: []Fields{{"id": "zz", "x": 1.0}}}, err: `no node has id "zz"`},
		{name: "bad color", edits: Edits{UpdateNodes: []Fields{{"id": "8132d4d894c80022", "color": "red"}}}, err: `"color" "red"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := Edit(base, tt.edits)
			if tt.err != "" {
				if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c, err := Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, base, out, c)
		})
	}
}

func TestEditEmptyCanvas(t *testing.T) {
	for _, src := range []string{"", "{}", "{\n\t\"nodes\":[],\n\t\"edges\":[]\n}"} {
		out, _, err := Edit([]byte(src), Edits{AddNodes: []Fields{{"id": "a", "type": "text", "text": "x"}, {"id": "b", "type": "link", "url": "https://x"}}, AddEdges: []Fields{{"id": "e", "fromNode": "a", "toNode": "b"}}})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		c, err := Parse(out)
		if err != nil || len(c.Nodes) != 2 || len(c.Edges) != 1 || len(c.Check()) != 0 {
			t.Errorf("%q -> %s (%v)", src, out, err)
		}
	}
}

func TestEditKeepsOldProblems(t *testing.T) {
	src := []byte(`{"nodes":[{"id":"a","type":"custom","x":0,"y":0,"width":1,"height":1}]}`)
	out, o, err := Edit(src, Edits{AddNodes: []Fields{{"id": "b", "type": "text", "text": "t"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Problems) != 1 || !bytes.HasPrefix(out, src[:len(src)-2]) {
		t.Errorf("problems %v, out %s", o.Problems, out)
	}
}

func TestNewID(t *testing.T) {
	id := NewID()
	if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" || id == NewID() {
		t.Errorf("id %q", id)
	}
}

func TestGroups(t *testing.T) {
	c, err := Parse(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "", "754a8ef995f366bc", "754a8ef995f366bc", ""}
	if got := c.Groups(); !reflect.DeepEqual(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}
