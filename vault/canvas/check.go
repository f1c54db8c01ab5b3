package canvas

import (
	"fmt"
	"regexp"
	"slices"
)

// NodeTypes are the node types JSON Canvas 1.0 defines.
var NodeTypes = []string{"text", "file", "link", "group"}

var (
	sides      = []string{"top", "right", "bottom", "left"}
	ends       = []string{"none", "arrow"}
	bgStyles   = []string{"cover", "ratio", "repeat"}
	colorRE    = regexp.MustCompile(`^(?:[1-6]|#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6})$`)
	required   = []string{"id", "type", "x", "y", "width", "height"}
	byType     = map[string]string{"text": "text", "file": "file", "link": "url"}
	edgeFields = []string{"id", "fromNode", "toNode"}
)

// Check lists what in the canvas breaks the spec's rules: ids missing or
// not unique (nodes and edges share one space of ids, as Obsidian's), a
// node type not in the spec, a required field missing or of the wrong
// JSON type, an edge between nodes that do not exist, a side, end, color
// or background style outside the spec's values. Keys the spec does not
// define are allowed: apps and plugins add their own.
func (c *Canvas) Check() []string {
	var out []string
	ids := map[string]string{}
	seen := func(id, what string) {
		if id == "" {
			return
		}
		if prev, ok := ids[id]; ok {
			out = append(out, fmt.Sprintf("%s: id %q is already used by %s", what, id, prev))
			return
		}
		ids[id] = what
	}
	src := c.src
	for i, n := range c.Nodes {
		what := fmt.Sprintf("node %d", i+1)
		if n.ID != "" {
			what = fmt.Sprintf("node %q", n.ID)
		}
		if n.v.kind != '{' {
			out = append(out, what+": not a JSON object")
			continue
		}
		for _, k := range required {
			out = append(out, wantKind(src, n.v, what, k, kindOf(k))...)
		}
		seen(n.ID, what)
		if n.Type != "" && !slices.Contains(NodeTypes, n.Type) {
			out = append(out, fmt.Sprintf("%s: unknown type %q (the spec knows %v)", what, n.Type, NodeTypes))
		}
		if k, ok := byType[n.Type]; ok {
			out = append(out, wantKind(src, n.v, what, k, '"')...)
		}
		for _, k := range []string{"color", "subpath", "label", "background", "backgroundStyle"} {
			if n.v.get(k) != nil {
				out = append(out, wantKind(src, n.v, what, k, '"')...)
			}
		}
		if n.Type == "file" && n.File == "" && n.v.get("file") != nil && n.v.get("file").kind == '"' {
			out = append(out, what+`: "file" is empty`)
		}
		if n.Subpath != "" && n.Subpath[0] != '#' {
			out = append(out, fmt.Sprintf(`%s: "subpath" %q does not start with '#'`, what, n.Subpath))
		}
		out = append(out, checkColor(what, n.Color)...)
		if n.BackgroundStyle != "" && !slices.Contains(bgStyles, n.BackgroundStyle) {
			out = append(out, fmt.Sprintf(`%s: "backgroundStyle" %q is not one of %v`, what, n.BackgroundStyle, bgStyles))
		}
	}
	nodeIDs := map[string]bool{}
	for _, n := range c.Nodes {
		nodeIDs[n.ID] = true
	}
	for i, e := range c.Edges {
		what := fmt.Sprintf("edge %d", i+1)
		if e.ID != "" {
			what = fmt.Sprintf("edge %q", e.ID)
		}
		if e.v.kind != '{' {
			out = append(out, what+": not a JSON object")
			continue
		}
		for _, k := range edgeFields {
			out = append(out, wantKind(src, e.v, what, k, '"')...)
		}
		seen(e.ID, what)
		for _, end := range []struct{ key, id string }{{"fromNode", e.FromNode}, {"toNode", e.ToNode}} {
			if end.id != "" && !nodeIDs[end.id] {
				out = append(out, fmt.Sprintf("%s: %s %q is no node of the canvas", what, end.key, end.id))
			}
		}
		for _, s := range []struct{ key, val string }{{"fromSide", e.FromSide}, {"toSide", e.ToSide}} {
			if s.val != "" && !slices.Contains(sides, s.val) {
				out = append(out, fmt.Sprintf("%s: %s %q is not one of %v", what, s.key, s.val, sides))
			}
		}
		for _, s := range []struct{ key, val string }{{"fromEnd", e.FromEnd}, {"toEnd", e.ToEnd}} {
			if s.val != "" && !slices.Contains(ends, s.val) {
				out = append(out, fmt.Sprintf("%s: %s %q is not one of %v", what, s.key, s.val, ends))
			}
		}
		for _, k := range []string{"fromSide", "toSide", "fromEnd", "toEnd", "color", "label"} {
			if e.v.get(k) != nil {
				out = append(out, wantKind(src, e.v, what, k, '"')...)
			}
		}
		out = append(out, checkColor(what, e.Color)...)
	}
	return out
}

func kindOf(key string) byte {
	switch key {
	case "x", "y", "width", "height":
		return '0'
	}
	return '"'
}

var kindNames = map[byte]string{'"': "a string", '0': "a number"}

// wantKind checks that obj has key, holding a value of kind.
func wantKind(src []byte, obj *value, what, key string, kind byte) []string {
	v := obj.get(key)
	switch {
	case v == nil:
		return []string{fmt.Sprintf("%s: required field %q is missing", what, key)}
	case v.kind != kind:
		return []string{fmt.Sprintf("%s: %q must be %s, not %s", what, key, kindNames[kind], src[v.start:min(v.end, v.start+40)])}
	}
	if kind == '"' && (key == "id" || key == "type") && v.end-v.start == 2 {
		return []string{fmt.Sprintf("%s: %q is empty", what, key)}
	}
	return nil
}

func checkColor(what, color string) []string {
	if color == "" || colorRE.MatchString(color) {
		return nil
	}
	return []string{fmt.Sprintf(`%s: "color" %q is neither a preset ("1" to "6") nor a hex color ("#RRGGBB")`, what, color)}
}
