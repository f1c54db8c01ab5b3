package query

import (
	"context"
	"math"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"vaultmcp/internal/topk"
	"vaultmcp/vault/access"
	"vaultmcp/vault/index"
)

// Request is one query.
type Request struct {
	Filter *Filter // nil matches every note
	// Sort is "path" (the default), "name", "modified", "size" or
	// "properties.<key>", with a leading "-" for descending order.
	Sort   string
	Offset int
	Limit  int // 0 means DefaultLimit
}

// DefaultLimit is how many notes a page holds unless asked otherwise.
const DefaultLimit = 50

// Result is one page of matching notes.
type Result struct {
	Total int              // notes matching, over all pages
	Notes []index.NoteMeta // this page, in order
}

// Source is what a query reads: the live index.
type Source interface {
	Generation() uint64
	EachNote(ctx context.Context, fn func(m *index.NoteMeta) bool) error
	Note(ctx context.Context, rel string) (index.NoteMeta, bool, error)
	ResolveName(ctx context.Context, name string) (string, bool, error)
	Outlinks(ctx context.Context, rel string) ([]index.Outlink, bool, error)
	// Scope is the request's access scope as answers from the source
	// must apply it (see index.Index.Scope: a note that is a symbolic
	// link is hidden when its target is).
	Scope(ctx context.Context) *access.Scope
}

var _ Source = (*index.Index)(nil)

// hit is one matching note while a query runs. Hits are kept small
// (the sort moves them); the page's notes are looked up at the end.
type hit struct {
	path       string
	key        string  // sort key as text
	num        float64 // sort key as a number, when numeric
	isNum, has bool
}

// number reads s as a number. Text that cannot be one is turned away
// before strconv, whose error for it would cost an allocation.
func number(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && c != '.' && c != 'e' && c != 'E' && c != '_' && !((c == '-' || c == '+') && (i == 0 || s[i-1] == 'e' || s[i-1] == 'E')) {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsNaN(f)
}

type sortKey struct {
	field string // path, name, modified, size, or a property key
	prop  bool
	desc  bool
}

func parseSort(s string) (sortKey, error) {
	s = strings.TrimSpace(s)
	k := sortKey{field: "path"}
	if s == "" {
		return k, nil
	}
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		k.desc, s = true, rest
	}
	switch {
	case s == "path" || s == "name" || s == "modified" || s == "size":
		k.field = s
	case strings.HasPrefix(s, "properties.") && len(s) > len("properties."):
		k.field, k.prop = strings.TrimPrefix(s, "properties."), true
	default:
		return k, bad("unknown sort %q: use path, name, modified, size or properties.<key>, with a leading - for descending order", s)
	}
	return k, nil
}

// Run answers a query from the table, brought up to date with the index
// first.
func (t *Table) Run(ctx context.Context, req Request) (Result, error) {
	src := t.src
	f := req.Filter
	if f == nil {
		f = &Filter{}
	}
	sk, err := parseSort(req.Sort)
	if err != nil {
		return Result{}, err
	}
	if req.Offset < 0 {
		return Result{}, bad("offset must not be negative")
	}
	limit := req.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	r, err := resolve(ctx, src, f)
	if err != nil {
		return Result{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.sync(ctx); err != nil {
		return Result{}, err
	}
	f.walk(func(sub *Filter) {
		for _, tag := range sub.tags {
			r.tags[sub] = append(r.tags[sub], t.lookup(t.tags, tag))
		}
		for i := range sub.props {
			r.keys[&sub.props[i]] = t.lookup(t.keys, strings.ToLower(sub.props[i].key))
		}
	})
	sortKey := noID
	if sk.prop {
		sortKey = t.lookup(t.keys, strings.ToLower(sk.field))
	}
	hits := t.hits[:0]
	defer func() { t.hits = hits[:0] }()
	// Notes the request's access scope hides are not there at all.
	scope := t.src.Scope(ctx)
	hides := scope.Hides()
	for i := range t.rows {
		rw := &t.rows[i]
		if hides && !scope.Visible(rw.path) || !f.match(rw, r) {
			continue
		}
		h := hit{path: rw.path, has: true}
		switch {
		case sk.prop:
			h.has = false
			for _, p := range rw.props {
				if p.key == sortKey && len(p.vals) > 0 {
					h.key, h.has = p.vals[0], true
					h.num, h.isNum = number(p.vals[0])
					break
				}
			}
		case sk.field == "path":
			h.key = rw.path
		case sk.field == "name":
			h.key = strings.TrimSuffix(path.Base(rw.path), path.Ext(rw.path))
		case sk.field == "modified":
			h.num, h.isNum = float64(rw.mod), true
		case sk.field == "size":
			h.num, h.isNum = float64(rw.size), true
		}
		hits = append(hits, h)
	}
	cmp := func(a, b hit) int {
		// Notes without the sort property go last either way.
		if a.has != b.has {
			if a.has {
				return -1
			}
			return 1
		}
		c := 0
		switch {
		case a.isNum && b.isNum:
			c = cmpFloat(a.num, b.num)
		case a.isNum != b.isNum && sk.prop:
			// Numbers before text.
			if a.isNum {
				c = -1
			} else {
				c = 1
			}
		default:
			c = cmpFold(a.key, b.key)
		}
		if sk.desc {
			c = -c
		}
		if c == 0 {
			c = strings.Compare(a.path, b.path)
		}
		return c
	}
	end := min(req.Offset+limit, len(hits))
	if req.Offset < len(hits) {
		topk.Sort(hits, end, cmp)
	}
	res := Result{Total: len(hits), Notes: []index.NoteMeta{}}
	for i := req.Offset; i < end; i++ {
		m, ok, err := src.Note(ctx, hits[i].path)
		if err != nil {
			return Result{}, err
		}
		if ok { // a note removed meanwhile is left out of the page
			res.Notes = append(res.Notes, m)
		}
	}
	return res, nil
}

// cmpFold compares strings ignoring case, without allocating for ASCII.
func cmpFold(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x >= utf8.RuneSelf || y >= utf8.RuneSelf {
			return strings.Compare(strings.ToLower(a[i:]), strings.ToLower(b[i:]))
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return cmpInt(len(a), len(b))
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// resolve looks up the notes a filter's links_to and links_from name.
func resolve(ctx context.Context, src Source, f *Filter) (*resolved, error) {
	r := &resolved{linksTo: map[*Filter][]string{}, linksFrom: map[*Filter][]map[string]bool{}, tags: map[*Filter][]uint32{}, keys: map[*propCond]uint32{}}
	var err error
	f.walk(func(sub *Filter) {
		for _, name := range sub.linksTo {
			if err != nil {
				return
			}
			var rel string
			if rel, err = lookup(ctx, src, name, "links_to"); err == nil {
				r.linksTo[sub] = append(r.linksTo[sub], rel)
			}
		}
		for _, name := range sub.linksFrom {
			if err != nil {
				return
			}
			var rel string
			if rel, err = lookup(ctx, src, name, "links_from"); err != nil {
				return
			}
			out, _, oerr := src.Outlinks(ctx, rel)
			if oerr != nil {
				err = oerr
				return
			}
			set := make(map[string]bool, len(out))
			for _, o := range out {
				if o.Path != "" {
					set[o.Path] = true
				}
			}
			r.linksFrom[sub] = append(r.linksFrom[sub], set)
		}
	})
	return r, err
}

// lookup finds the note a name or path names, as a link from the vault
// root would.
func lookup(ctx context.Context, src Source, name, key string) (string, error) {
	rel, ok, err := src.ResolveName(ctx, strings.TrimSuffix(strings.TrimPrefix(unlink(name), "/"), "/"))
	if err != nil {
		return "", err
	}
	if !ok {
		return "", bad("%s: no note or file is named %q", key, name)
	}
	return rel, nil
}
