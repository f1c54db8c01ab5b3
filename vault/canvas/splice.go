package canvas

import (
	"fmt"
	"slices"
)

// splice is one change to the bytes: src[start:end] becomes text.
type splice struct {
	start, end int
	text       []byte
}

// apply returns src with the splices, which must not overlap, made.
func apply(src []byte, ss []splice) []byte {
	slices.SortFunc(ss, func(a, b splice) int { return a.start - b.start })
	grow := 0
	for _, s := range ss {
		grow += len(s.text) - (s.end - s.start)
	}
	out := make([]byte, 0, len(src)+max(grow, 0))
	last := 0
	for _, s := range ss {
		out = append(out, src[last:s.start]...)
		out = append(out, s.text...)
		last = s.end
	}
	return append(out, src[last:]...)
}

// Set is one string value to write into a node: the node's key gets
// Value. A rename sets file nodes' "file" and text nodes' "text".
type Set struct {
	Node  int // index in Canvas.Nodes
	Key   string
	Value string
}

// WithStrings returns the canvas's bytes with each set's string spliced
// in place of the key's value token: every other byte stays as written.
// A set whose node lacks the key, or holds it as anything but a string,
// is an error (it would not be a splice of one token).
func (c *Canvas) WithStrings(sets []Set) ([]byte, error) {
	ss := make([]splice, 0, len(sets))
	for _, s := range sets {
		if s.Node < 0 || s.Node >= len(c.Nodes) {
			return nil, fmt.Errorf("no node %d", s.Node)
		}
		v := c.Nodes[s.Node].v.get(s.Key)
		if v == nil || v.kind != '"' {
			return nil, fmt.Errorf("node %q has no string %q", c.Nodes[s.Node].ID, s.Key)
		}
		for _, o := range ss {
			if o.start == v.start {
				return nil, fmt.Errorf("node %q: %q set twice", c.Nodes[s.Node].ID, s.Key)
			}
		}
		ss = append(ss, splice{start: v.start, end: v.end, text: encodeString(s.Value)})
	}
	return apply(c.src, ss), nil
}

// removeElem is the splice that takes element i out of the array arr,
// with the separator on one side of it, so the elements around it keep
// their layout.
func removeElem(src []byte, arr *value, i int) splice {
	starts := make([]int, len(arr.elems))
	for j, e := range arr.elems {
		starts[j] = e.start
	}
	return removeItem(arr, starts, i)
}

// removeMember is removeElem for member i of the object obj.
func removeMember(obj *value, i int) splice {
	starts := make([]int, len(obj.members))
	for j, m := range obj.members {
		starts[j] = m.keyStart
	}
	return removeItem(obj, starts, i)
}

// removeItem removes item i of a container whose items start at starts
// (and end where their values do).
func removeItem(c *value, starts []int, i int) splice {
	end := func(j int) int {
		if c.kind == '{' {
			return c.members[j].val.end
		}
		return c.elems[j].end
	}
	n := len(starts)
	switch {
	case n == 1:
		return splice{start: c.start + 1, end: c.end - 1}
	case i < n-1:
		return splice{start: starts[i], end: starts[i+1]}
	default:
		return splice{start: end(i - 1), end: end(i)}
	}
}

// appendItem is the splice that adds item (an element, or `"key":value`)
// at the end of the container c, separated from the one before as the
// last two are (or as the first is from the bracket).
func appendItem(src []byte, c *value, item []byte) splice {
	var starts, ends []int
	if c.kind == '{' {
		for _, m := range c.members {
			starts, ends = append(starts, m.keyStart), append(ends, m.val.end)
		}
	} else {
		for _, e := range c.elems {
			starts, ends = append(starts, e.start), append(ends, e.end)
		}
	}
	n := len(starts)
	switch n {
	case 0:
		return splice{start: c.start + 1, end: c.end - 1, text: item}
	case 1:
		sep := append([]byte{','}, src[c.start+1:starts[0]]...)
		return splice{start: ends[0], end: ends[0], text: append(sep, item...)}
	}
	sep := slices.Clone(src[ends[n-2]:starts[n-1]])
	return splice{start: ends[n-1], end: ends[n-1], text: append(sep, item...)}
}

// colon returns how the object obj separates its keys from their values
// (":" or ": "), as its first member does.
func colon(src []byte, obj *value) []byte {
	if obj.kind == '{' && len(obj.members) > 0 {
		m := obj.members[0]
		return src[stringEnd(src, m.keyStart):m.val.start]
	}
	return []byte{':'}
}
