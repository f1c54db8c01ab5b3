package query

import (
	"context"
	"strings"
	"sync"

	"vaultmcp/vault/index"
)

// Table is what queries read of each note, laid out for scanning: one
// contiguous row per note, tags and property keys as small interned
// numbers (a note's tags include the parents of its nested tags), so a
// filter over every note compares integers in order instead of chasing
// strings across the heap. Values and paths are the index's own strings,
// not copies. It follows the index: before each query, notes whose
// sequence number changed are read again, and the others' times and
// sizes copied (nothing is done while the index's generation stays the
// same). Safe for concurrent use.
type Table struct {
	src Source

	mu    sync.Mutex
	gen   uint64
	built bool
	epoch uint32
	rows  []row
	at    map[string]int32  // path -> index in rows
	tags  map[string]uint32 // folded tag -> id
	keys  map[string]uint32 // folded property key -> id
	hits  []hit             // scratch for Run, reused under mu
}

// row is one note.
type row struct {
	path  string
	mod   int64 // UnixNano
	size  int64
	seq   uint64
	epoch uint32
	tags  []uint32 // the note's tags and their parents
	props []prop
	links []string // resolved link targets, shared with the index
}

type prop struct {
	key  uint32
	vals []string // shared with the index
}

// NewTable returns a table over src; it is filled by the first query.
func NewTable(src Source) *Table {
	return &Table{src: src}
}

// sync brings the rows up to date. Caller holds t.mu.
func (t *Table) sync(ctx context.Context) error {
	gen := t.src.Generation()
	if t.built && gen == t.gen {
		return nil
	}
	if !t.built {
		t.at, t.tags, t.keys = map[string]int32{}, map[string]uint32{}, map[string]uint32{}
	}
	t.epoch++
	err := t.src.EachNote(ctx, func(m *index.NoteMeta) bool {
		if i, ok := t.at[m.Path]; ok {
			r := &t.rows[i]
			if r.seq != m.Seq {
				*r = t.rowOf(m)
			} else {
				// The index keeps a note whose text is unchanged under
				// its sequence number even when its time moved.
				r.mod, r.size = m.ModTime.UnixNano(), m.Size
			}
			r.epoch = t.epoch
			return true
		}
		t.at[m.Path] = int32(len(t.rows))
		t.rows = append(t.rows, t.rowOf(m))
		return true
	})
	if err != nil {
		return err
	}
	// Drop the notes the index no longer has.
	for i := 0; i < len(t.rows); {
		if t.rows[i].epoch == t.epoch {
			i++
			continue
		}
		delete(t.at, t.rows[i].path)
		last := len(t.rows) - 1
		if i != last {
			t.rows[i] = t.rows[last]
			t.at[t.rows[i].path] = int32(i)
		}
		t.rows[last] = row{}
		t.rows = t.rows[:last]
	}
	t.gen, t.built = gen, true
	return nil
}

func (t *Table) rowOf(m *index.NoteMeta) row {
	r := row{path: m.Path, mod: m.ModTime.UnixNano(), size: m.Size, seq: m.Seq, epoch: t.epoch, links: m.Links}
	for _, k := range m.TagKeys {
		// "area/work" also stands for "area".
		for p := k; p != ""; {
			id := t.intern(t.tags, p)
			if !containsID(r.tags, id) {
				r.tags = append(r.tags, id)
			}
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	if len(m.Properties) > 0 {
		r.props = make([]prop, len(m.Properties))
		for i, p := range m.Properties {
			r.props[i] = prop{key: t.intern(t.keys, strings.ToLower(p.Key)), vals: p.Values}
		}
	}
	return r
}

// intern returns the id of s in ids, adding it.
func (t *Table) intern(ids map[string]uint32, s string) uint32 {
	id, ok := ids[s]
	if !ok {
		id = uint32(len(ids))
		ids[strings.Clone(s)] = id
	}
	return id
}

// noID stands for a tag or key no note has: it matches nothing.
const noID = ^uint32(0)

func (t *Table) lookup(ids map[string]uint32, s string) uint32 {
	if id, ok := ids[s]; ok {
		return id
	}
	return noID
}

func containsID(ids []uint32, id uint32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
