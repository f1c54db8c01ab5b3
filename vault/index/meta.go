package index

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Property is one frontmatter property as the index keeps it for queries:
// its value as text, which a query compares as text, number or date as
// the comparison asks, and the kind of each value, so an answer can show
// the values typed without reading YAML again.
type Property struct {
	// Key is the key as written.
	Key string
	// Values holds the scalar value, or each scalar item of a list, as
	// text ("3", "true", "2026-01-05"). Nil for an empty property;
	// mappings keep no values.
	Values []string
	// Kinds holds the kind of each of Values.
	Kinds []ValueKind
	// List is set for a list value.
	List bool
	// Complex is set when Values does not hold the whole value: a
	// mapping, or a list with mappings, lists or empty items in it.
	Complex bool
}

// ValueKind is what a property value was in YAML.
type ValueKind uint8

// The kinds of values.
const (
	KindText   ValueKind = iota // text, dates included
	KindNumber                  // an integer or a decimal
	KindBool                    // true or false
)

// properties extracts the queryable form of a parsed frontmatter, in the
// order the keys are written in the frontmatter text fmText. The parser
// already decoded it; keeping a few strings per note is what lets a query
// over every note run without touching YAML.
func properties(fm map[string]any, fmText []byte) []Property {
	if len(fm) == 0 {
		return nil
	}
	props := make([]Property, 0, len(fm))
	// The values of all the note's properties share one array, and their
	// kinds another, sized for every item being a scalar: two
	// allocations a note rather than two a property. Each property's
	// slices are capped at their length, so an append to one never writes
	// over the next.
	most := 0
	for _, v := range fm {
		if x, ok := v.([]any); ok {
			most += len(x)
		} else {
			most++
		}
	}
	vals, kinds := make([]string, 0, most), make([]ValueKind, 0, most)
	for k, v := range fm {
		p := Property{Key: k}
		from := len(vals)
		switch x := v.(type) {
		case []any:
			p.List = true
			for _, item := range x {
				if s, kind, ok := scalarText(item); ok {
					vals, kinds = append(vals, s), append(kinds, kind)
				} else {
					p.Complex = true
				}
			}
		case nil:
		default:
			if s, kind, ok := scalarText(v); ok {
				vals, kinds = append(vals, s), append(kinds, kind)
			} else {
				p.Complex = true
			}
		}
		if to := len(vals); to > from {
			p.Values, p.Kinds = vals[from:to:to], kinds[from:to:to]
		}
		props = append(props, p)
	}
	// Written order: where each key starts a line (a key not found, say
	// one written in quotes, goes last).
	at := func(k string) int {
		for i := 0; ; {
			j := bytes.Index(fmText[i:], []byte(k+":"))
			if j < 0 {
				return len(fmText)
			}
			if j += i; j == 0 || fmText[j-1] == '\n' {
				return j
			}
			i = j + 1
		}
	}
	slices.SortFunc(props, func(a, b Property) int {
		if c := at(a.Key) - at(b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return props
}

// scalarText renders a decoded YAML scalar as text; ok is false for nil,
// mappings and nested lists.
func scalarText(v any) (string, ValueKind, bool) {
	switch x := v.(type) {
	case string:
		return x, KindText, true
	case bool:
		return strconv.FormatBool(x), KindBool, true
	case int:
		return strconv.Itoa(x), KindNumber, true
	case int64:
		return strconv.FormatInt(x, 10), KindNumber, true
	case uint64:
		return strconv.FormatUint(x, 10), KindNumber, true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), KindNumber, true
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format(time.DateOnly), KindText, true
		}
		return x.Format(time.RFC3339), KindText, true
	}
	return "", KindText, false
}

// NoteMeta is what the index knows of one note, for queries that look at
// every note. Its slices are shared with the index and never modified in
// place (a changed note gets new ones): read them, do not change them.
type NoteMeta struct {
	Path    string
	ModTime time.Time
	Size    int64
	// Seq changes whenever the note is re-read: a consumer that keeps
	// something derived from Content knows by it when to redo that.
	Seq     uint64
	Content []byte
	// Tags are the note's tags as spelled; TagKeys the same folded (see
	// TagKey).
	Tags, TagKeys []string
	Properties    []Property
	// Links holds the file each of the note's links resolves to ("" when
	// the link is broken or points at the note itself).
	Links []string
}

// EachNote calls fn with every note, in no particular order, until fn
// returns false. It waits for the first build. fn runs under the
// index's read lock: it must be quick and must not call the index; keep
// what outlives the call by copying the NoteMeta (its slices may be
// kept).
func (ix *Index) EachNote(ctx context.Context, fn func(m *NoteMeta) bool) error {
	if err := ix.Wait(ctx); err != nil {
		return err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var m NoteMeta
	for _, n := range ix.notes {
		m = NoteMeta{
			Path: n.rel, ModTime: n.modTime, Size: n.size, Seq: n.seq, Content: n.content,
			Tags: n.doc.tags, TagKeys: n.doc.tagKeys, Properties: n.doc.props, Links: n.out,
		}
		if !fn(&m) {
			break
		}
	}
	return nil
}

// Note returns what the index knows of one note; ok is false when rel is
// not an indexed note.
func (ix *Index) Note(ctx context.Context, rel string) (NoteMeta, bool, error) {
	if err := ix.Wait(ctx); err != nil {
		return NoteMeta{}, false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n, ok := ix.notes[rel]
	if !ok {
		return NoteMeta{}, false, nil
	}
	return NoteMeta{
		Path: n.rel, ModTime: n.modTime, Size: n.size, Seq: n.seq, Content: n.content,
		Tags: n.doc.tags, TagKeys: n.doc.tagKeys, Properties: n.doc.props, Links: n.out,
	}, true, nil
}

// Generation returns a number that changes whenever the index does, so a
// consumer can tell cheaply whether it must look again.
func (ix *Index) Generation() uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.gen
}

// TagKey folds a tag (with or without '#') the way NoteMeta.TagKeys are
// folded.
func TagKey(tag string) string {
	return key(strings.TrimPrefix(tag, "#"))
}
