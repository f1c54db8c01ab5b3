package canvas

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// NewID returns a new id as Obsidian makes them: 16 lowercase hex
// characters (64 random bits).
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// Fields are the keys of a node or edge to write, with their JSON values
// as encoding/json decodes them (string, float64, bool, nil, maps and
// lists). In an update, nil removes the key.
type Fields map[string]any

// Edits are the changes one edit makes to a canvas. They are applied in
// this order: edges removed, nodes removed (with the edges touching them,
// as Obsidian removes them), nodes updated, edges updated, nodes added,
// edges added, so an added edge may join nodes added by the same edit.
type Edits struct {
	RemoveEdges []string
	RemoveNodes []string
	UpdateNodes []Fields // each with its "id"
	UpdateEdges []Fields
	AddNodes    []Fields // "id" is generated when not given
	AddEdges    []Fields
}

// Len is the number of changes.
func (e Edits) Len() int {
	return len(e.RemoveEdges) + len(e.RemoveNodes) + len(e.UpdateNodes) + len(e.UpdateEdges) + len(e.AddNodes) + len(e.AddEdges)
}

// Outcome says what an edit did.
type Outcome struct {
	Added    []string // ids of the nodes and edges added, in order
	Removed  []string // ids removed, edges removed with their nodes included
	Updated  []string
	Problems []string // problems the canvas already had, left as they were
}

// ErrRejected is wrapped by the error of an edit that would break the
// spec's rules or names what the canvas does not have.
var ErrRejected = errors.New("canvas edit rejected")

// Edit applies e to the canvas src and returns the new bytes. Only the
// nodes, edges and keys the edit names change: everything else stays as
// written. The result is checked (Check): an edit that would add a
// problem is rejected, naming it; problems the canvas already had are
// left alone and reported in Outcome.Problems.
func Edit(src []byte, e Edits) ([]byte, Outcome, error) {
	c, err := Parse(src)
	if err != nil {
		return nil, Outcome{}, err
	}
	before := c.Check()
	var out Outcome
	reject := func(format string, args ...any) ([]byte, Outcome, error) {
		return nil, Outcome{}, fmt.Errorf("%w: "+format, append([]any{ErrRejected}, args...)...)
	}
	step := func(ss ...splice) error {
		b := apply(c.src, ss)
		nc, err := Parse(b)
		if err != nil {
			// A splice of valid values into valid JSON is valid JSON.
			return fmt.Errorf("canvas edit made invalid JSON (a bug): %w", err)
		}
		*c = *nc // in place: the methods running the steps see it
		return nil
	}
	for _, id := range e.RemoveEdges {
		i := slices.IndexFunc(c.Edges, func(x Edge) bool { return x.ID == id })
		if i < 0 {
			return reject("remove_edges: no edge has id %q", id)
		}
		if err := step(removeElem(c.src, c.root.get("edges"), i)); err != nil {
			return nil, Outcome{}, err
		}
		out.Removed = append(out.Removed, id)
	}
	for _, id := range e.RemoveNodes {
		i := slices.IndexFunc(c.Nodes, func(x Node) bool { return x.ID == id })
		if i < 0 {
			return reject("remove_nodes: no node has id %q", id)
		}
		if err := step(removeElem(c.src, c.root.get("nodes"), i)); err != nil {
			return nil, Outcome{}, err
		}
		out.Removed = append(out.Removed, id)
		for {
			j := slices.IndexFunc(c.Edges, func(x Edge) bool { return x.FromNode == id || x.ToNode == id })
			if j < 0 {
				break
			}
			out.Removed = append(out.Removed, c.Edges[j].ID)
			if err := step(removeElem(c.src, c.root.get("edges"), j)); err != nil {
				return nil, Outcome{}, err
			}
		}
	}
	for _, f := range e.UpdateNodes {
		id, _ := f["id"].(string)
		i := slices.IndexFunc(c.Nodes, func(x Node) bool { return x.ID == id })
		if i < 0 {
			return reject("update_nodes: no node has id %q", id)
		}
		if err := c.update(c.Nodes[i].v, f, step); err != nil {
			return reject("update_nodes %q: %v", id, err)
		}
		out.Updated = append(out.Updated, id)
	}
	for _, f := range e.UpdateEdges {
		id, _ := f["id"].(string)
		i := slices.IndexFunc(c.Edges, func(x Edge) bool { return x.ID == id })
		if i < 0 {
			return reject("update_edges: no edge has id %q", id)
		}
		if err := c.update(c.Edges[i].v, f, step); err != nil {
			return reject("update_edges %q: %v", id, err)
		}
		out.Updated = append(out.Updated, id)
	}
	for _, f := range e.AddNodes {
		f = c.nodeDefaults(f)
		item, err := encodeObject(f, nodeOrder)
		if err != nil {
			return reject("add_nodes: %v", err)
		}
		if err := c.appendTo("nodes", item, step); err != nil {
			return nil, Outcome{}, err
		}
		out.Added = append(out.Added, f["id"].(string))
	}
	for _, f := range e.AddEdges {
		f = maps(f)
		if id, ok := f["id"]; !ok || id == nil || id == "" {
			f["id"] = NewID()
		}
		item, err := encodeObject(f, edgeOrder)
		if err != nil {
			return reject("add_edges: %v", err)
		}
		if err := c.appendTo("edges", item, step); err != nil {
			return nil, Outcome{}, err
		}
		if id, ok := f["id"].(string); ok {
			out.Added = append(out.Added, id)
		}
	}
	var added []string
	for _, p := range c.Check() {
		if !slices.Contains(before, p) {
			added = append(added, p)
		}
	}
	if len(added) > 0 {
		return reject("%s", strings.Join(added, "; "))
	}
	out.Problems = before
	return c.src, out, nil
}

// maps returns a copy of f, so defaults never change the caller's.
func maps(f Fields) Fields {
	g := make(Fields, len(f)+4)
	for k, v := range f {
		g[k] = v
	}
	return g
}

// nodeOrder and edgeOrder are the orders Obsidian writes keys in; keys
// not listed follow, sorted.
var (
	nodeOrder = []string{"id", "type", "text", "file", "subpath", "url", "x", "y", "width", "height", "color", "label", "background", "backgroundStyle"}
	edgeOrder = []string{"id", "fromNode", "fromSide", "fromEnd", "toNode", "toSide", "toEnd", "color", "label"}
)

// defaultSize is the size Obsidian gives a new node of each type.
var defaultSize = map[string][2]float64{"text": {250, 60}, "file": {400, 400}, "link": {400, 400}, "group": {400, 400}}

// placeGap is the room left between the board and a node added without
// a position.
const placeGap = 40

// nodeDefaults fills in what a new node may leave out: an id, a size for
// its type, and a place to the right of everything on the board.
func (c *Canvas) nodeDefaults(f Fields) Fields {
	f = maps(f)
	if id, ok := f["id"]; !ok || id == nil || id == "" {
		f["id"] = NewID()
	}
	t, _ := f["type"].(string)
	if size, ok := defaultSize[t]; ok {
		if _, ok := f["width"]; !ok {
			f["width"] = size[0]
		}
		if _, ok := f["height"]; !ok {
			f["height"] = size[1]
		}
	}
	_, hasX := f["x"]
	_, hasY := f["y"]
	if !hasX || !hasY {
		right, top := 0.0, 0.0
		for i, n := range c.Nodes {
			if i == 0 || n.X+n.Width > right {
				right = n.X + n.Width
			}
			if i == 0 || n.Y < top {
				top = n.Y
			}
		}
		if len(c.Nodes) > 0 {
			right += placeGap
		}
		if !hasX {
			f["x"] = right
		}
		if !hasY {
			f["y"] = top
		}
	}
	return f
}

// update sets, adds and removes the keys of f (but "id") in the object
// obj, one splice at a time.
func (c *Canvas) update(obj *value, f Fields, step func(...splice) error) error {
	keys := make([]string, 0, len(f))
	for k := range f {
		if k != "id" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return errors.New("nothing to change: give the fields to set (null removes one)")
	}
	slices.Sort(keys)
	id := obj.start // objects are found again by where they start: earlier splices are after it only
	find := func() *value { return findObject(c.root, id) }
	for _, k := range keys {
		o := find()
		if o == nil {
			return errors.New("lost track of the object (a bug)")
		}
		v := f[k]
		at := slices.IndexFunc(o.members, func(m member) bool { return m.key == k })
		switch {
		case v == nil && at < 0:
			continue
		case v == nil:
			if err := step(removeMember(o, at)); err != nil {
				return err
			}
		default:
			enc, err := encodeValue(v)
			if err != nil {
				return fmt.Errorf("%s: %v", k, err)
			}
			if at >= 0 {
				m := o.members[at]
				err = step(splice{start: m.val.start, end: m.val.end, text: enc})
			} else {
				item := append(append(encodeString(k), colon(c.src, o)...), enc...)
				err = step(appendItem(c.src, o, item))
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// findObject finds the node or edge object starting at off.
func findObject(root *value, off int) *value {
	for _, k := range []string{"nodes", "edges"} {
		if arr := root.get(k); arr != nil {
			for _, e := range arr.elems {
				if e.start == off {
					return e
				}
			}
		}
	}
	return nil
}

// appendTo adds item at the end of the top-level array key, making the
// array when the canvas has none.
func (c *Canvas) appendTo(key string, item []byte, step func(...splice) error) error {
	if c.root == nil {
		return step(splice{start: 0, end: len(c.src), text: []byte(`{"` + key + `":[` + string(item) + `]}`)})
	}
	arr := c.root.get(key)
	if arr == nil {
		empty := append(append(encodeString(key), colon(c.src, c.root)...), '[', ']')
		if err := step(appendItem(c.src, c.root, empty)); err != nil {
			return err
		}
		arr = c.root.get(key)
	}
	return step(appendItem(c.src, arr, item))
}

// encodeObject writes f as a compact JSON object, keys in order first.
func encodeObject(f Fields, order []string) ([]byte, error) {
	keys := make([]string, 0, len(f))
	for k, v := range f {
		if v != nil && !slices.Contains(order, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	b := []byte{'{'}
	for _, k := range append(slices.Clone(order), keys...) {
		v, ok := f[k]
		if !ok || v == nil {
			continue
		}
		enc, err := encodeValue(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(append(b, encodeString(k)...), ':'), enc...)
	}
	return append(b, '}'), nil
}

// encodeValue writes one JSON value: numbers with an integral value as
// integers (the spec's positions and sizes are integers), strings as
// JSON.stringify writes them.
func encodeValue(v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return encodeString(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("not a finite number")
		}
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.AppendInt(nil, int64(x), 10), nil
		}
		return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
	case int:
		return strconv.AppendInt(nil, int64(x), 10), nil
	case json.Number:
		return []byte(x.String()), nil
	}
	return json.Marshal(v)
}
