package query

import (
	"context"
	"path"
	"slices"
	"strconv"
	"strings"

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
	EachNote(ctx context.Context, fn func(m *index.NoteMeta) bool) error
	ResolveName(ctx context.Context, name string) (string, bool, error)
	Outlinks(ctx context.Context, rel string) ([]index.Outlink, bool, error)
}

var _ Source = (*index.Index)(nil)

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

// Run answers a query from src.
func Run(ctx context.Context, src Source, req Request) (Result, error) {
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
	type hit struct {
		meta       index.NoteMeta
		key        string  // sort key as text
		num        float64 // sort key as a number, when numeric
		isNum, has bool
	}
	var hits []hit
	err = src.EachNote(ctx, func(m *index.NoteMeta) bool {
		if !f.match(m, r) {
			return true
		}
		h := hit{meta: *m, has: true}
		switch {
		case sk.prop:
			h.has = false
			for _, p := range m.Properties {
				if strings.EqualFold(p.Key, sk.field) && len(p.Values) > 0 {
					h.key, h.has = strings.ToLower(p.Values[0]), true
					if v, err := strconv.ParseFloat(strings.TrimSpace(p.Values[0]), 64); err == nil {
						h.num, h.isNum = v, true
					}
					break
				}
			}
		case sk.field == "path":
			h.key = m.Path
		case sk.field == "name":
			h.key = strings.ToLower(strings.TrimSuffix(path.Base(m.Path), path.Ext(m.Path)))
		case sk.field == "modified":
			h.num, h.isNum = float64(m.ModTime.UnixNano()), true
		case sk.field == "size":
			h.num, h.isNum = float64(m.Size), true
		}
		hits = append(hits, h)
		return true
	})
	if err != nil {
		return Result{}, err
	}
	slices.SortFunc(hits, func(a, b hit) int {
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
			c = strings.Compare(a.key, b.key)
		}
		if sk.desc {
			c = -c
		}
		if c == 0 {
			c = strings.Compare(a.meta.Path, b.meta.Path)
		}
		return c
	})
	res := Result{Total: len(hits), Notes: []index.NoteMeta{}}
	for i := req.Offset; i < len(hits) && i < req.Offset+limit; i++ {
		res.Notes = append(res.Notes, hits[i].meta)
	}
	return res, nil
}

// resolve looks up the notes a filter's links_to and links_from name.
func resolve(ctx context.Context, src Source, f *Filter) (*resolved, error) {
	r := &resolved{linksTo: map[*Filter][]string{}, linksFrom: map[*Filter][]map[string]bool{}}
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
