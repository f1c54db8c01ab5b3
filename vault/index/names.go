package index

import (
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"vaultmcp/vault"
)

// key folds a name or path for lookup: Obsidian resolves links without
// regard to case, and a name typed in NFC must find a file stored in NFD.
func key(s string) string { return vault.FoldName(s) }

// linkKey is the bucket a link target or a file falls in: its base name,
// folded, without a .md extension. A file can only be the target of a link
// in the same bucket, which keeps re-resolution after a rename local.
func linkKey(target string) string {
	b := key(path.Base(target))
	return strings.TrimSuffix(b, ".md")
}

// names is the vault's file table for link resolution.
type names struct {
	byPath map[string]string   // key(rel) -> rel
	byBase map[string][]string // key(base name) -> rels, nearest the root first
	// over, set only on a view made by renamed, holds the few entries
	// that differ from the maps above; lookups go through path and base.
	over *namesOverlay
}

// namesOverlay is the part of a names table a rename changes: the
// entries of the keys it touches as they are after it. An entry absent
// after the rename is kept with ok false, so it hides the table's.
type namesOverlay struct {
	byPath map[string]overPath
	byBase map[string][]string // a nil list: no file with that base name
}

type overPath struct {
	rel string
	ok  bool
}

// path is byPath[k], seen through the overlay.
func (n *names) path(k string) (string, bool) {
	if n.over != nil {
		if e, ok := n.over.byPath[k]; ok {
			return e.rel, e.ok
		}
	}
	rel, ok := n.byPath[k]
	return rel, ok
}

// base is byBase[k], seen through the overlay.
func (n *names) base(k string) []string {
	if n.over != nil {
		if list, ok := n.over.byBase[k]; ok {
			return list
		}
	}
	return n.byBase[k]
}

// renamed returns n as it will be once the file from is renamed to to,
// without copying it: only the two base-name lists and the two path
// entries a rename touches are worked out anew (a copy of the whole table
// cost a rename tens of milliseconds and megabytes at 100,000 notes, for
// four entries). The view shares n's maps, so n must not change while it
// is in use (the caller holds the index's lock).
func (n *names) renamed(from, to string) names {
	// A table of just the touched entries, changed as remove and add
	// change the whole one: they read and write no other key.
	part := newNames()
	fk, tk := nameKeys(from), nameKeys(to)
	for _, k := range []nameKeysOf{fk, tk} {
		if list, ok := n.byBase[k.base]; ok {
			part.byBase[k.base] = slices.Clone(list)
		}
		if rel, ok := n.byPath[k.path]; ok {
			part.byPath[k.path] = rel
		}
	}
	part.remove(from)
	part.addKeyed(to, tk)
	over := &namesOverlay{byPath: map[string]overPath{}, byBase: map[string][]string{}}
	for _, k := range []nameKeysOf{fk, tk} {
		over.byBase[k.base] = part.byBase[k.base]
		rel, ok := part.byPath[k.path]
		over.byPath[k.path] = overPath{rel: rel, ok: ok}
	}
	return names{byPath: n.byPath, byBase: n.byBase, over: over}
}

func newNames() names {
	return names{byPath: map[string]string{}, byBase: map[string][]string{}}
}

// add records rel. Paths that differ only in case or Unicode form (two
// files on a case-sensitive disk) share one byPath entry, the one that
// sorts first whatever the order they came in; both are kept in byBase so
// that the other can take over when it goes.
func (n *names) add(rel string) {
	n.addKeyed(rel, nameKeys(rel))
}

// nameKeysOf are the two keys a file is known by in names: its base
// name's and its path's.
type nameKeysOf struct{ base, path string }

func nameKeys(rel string) nameKeysOf {
	return nameKeysOf{base: key(path.Base(rel)), path: key(rel)}
}

// addKeyed is add with rel's keys (nameKeys) worked out beforehand: a
// build folds them in parallel, not under the lock.
func (n *names) addKeyed(rel string, keys nameKeysOf) {
	b := keys.base
	if slices.Contains(n.byBase[b], rel) {
		return
	}
	k := keys.path
	if old, ok := n.byPath[k]; !ok || rel < old {
		n.byPath[k] = rel
	}
	list := append(n.byBase[b], rel)
	slices.SortFunc(list, nearerRoot)
	n.byBase[b] = list
}

func (n *names) remove(rel string) {
	b := key(path.Base(rel))
	if !slices.Contains(n.byBase[b], rel) {
		return
	}
	list := slices.DeleteFunc(n.byBase[b], func(r string) bool { return r == rel })
	if len(list) == 0 {
		delete(n.byBase, b)
	} else {
		n.byBase[b] = list
	}
	k := key(rel)
	if n.byPath[k] != rel {
		return
	}
	delete(n.byPath, k)
	for _, other := range list { // sorted: the first twin is the smallest
		if key(other) == k {
			n.byPath[k] = other
			break
		}
	}
}

// nearerRoot orders paths as Obsidian prefers them when a bare name is
// shared: fewest folders first, then alphabetically (then byte-wise, so
// that twins differing only in case sort the same however they came in).
func nearerRoot(a, b string) int {
	if da, db := strings.Count(a, "/"), strings.Count(b, "/"); da != db {
		return da - db
	}
	if c := strings.Compare(key(a), key(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// resolve finds the file a link target points to from the note at from,
// following Obsidian: "" is the note itself; a path is tried from the
// vault root, then relative to the linking note, then as the tail of a
// longer path; a bare name shared by several files goes to the one in
// the linking note's folder, else the one nearest the root. ".md" may be
// left out of note names; attachments are named with their extension.
func (n *names) resolve(target, from string) (string, bool) {
	t := strings.TrimSpace(target)
	if t == "" {
		return from, from != ""
	}
	t = strings.TrimPrefix(t, "/")
	if strings.Contains(t, "/") {
		if rel, ok := n.exact(path.Clean(t)); ok {
			return rel, true
		}
		if rel, ok := n.exact(path.Join(path.Dir(from), t)); ok {
			return rel, true
		}
		return n.byTail(t, from)
	}
	// The name's key is folded once, into a buffer on the stack, and
	// looked up with and without ".md": key(t+".md") is key(t)+".md",
	// since folding never joins a character across a ".". This is most of
	// a build's link resolution.
	var buf [96]byte
	k := appendKey(buf[:0], t)
	short := len(k)
	k = append(k, ".md"...)
	if rel, ok := n.inFolder(n.baseOf(k), from); ok {
		return rel, true
	}
	return n.inFolder(n.baseOf(k[:short]), from)
}

// resolveLink resolves the link l of the note or canvas from: a canvas's
// file node names its file by path, and nothing else.
func (n *names) resolveLink(l docLink, from string) (string, bool) {
	if !l.exact {
		return n.resolve(l.target, from)
	}
	var buf [128]byte
	return n.pathOf(appendKey(buf[:0], strings.TrimPrefix(l.target, "/")))
}

// appendKey appends key(s) to b, without a string of its own when s is
// ASCII (strings.ToLower then only maps A-Z) or already NFC (it then maps
// each rune by unicode.ToLower, as strings.ToLower does).
func appendKey(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			continue
		}
		if norm.NFC.QuickSpanString(s) != len(s) {
			return append(b, key(s)...)
		}
		for _, r := range s {
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
		return b
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// exact looks p up as a vault path, with or without ".md".
func (n *names) exact(p string) (string, bool) {
	if strings.HasPrefix(p, "../") || p == ".." {
		return "", false
	}
	var buf [128]byte
	k := appendKey(buf[:0], p)
	short := len(k)
	if rel, ok := n.pathOf(append(k, ".md"...)); ok {
		return rel, true
	}
	return n.pathOf(k[:short])
}

// pathOf is path(string(k)); without an overlay, the map is indexed with
// the bytes themselves, which makes no string of them.
func (n *names) pathOf(k []byte) (string, bool) {
	if n.over == nil {
		rel, ok := n.byPath[string(k)]
		return rel, ok
	}
	return n.path(string(k))
}

// baseOf is base(string(k)), as pathOf is path's.
func (n *names) baseOf(k []byte) []string {
	if n.over == nil {
		return n.byBase[string(k)]
	}
	return n.base(string(k))
}

// inFolder picks among the files list, which share a base name: the one
// in from's folder, else the first (nearest the root).
func (n *names) inFolder(list []string, from string) (string, bool) {
	if len(list) == 0 {
		return "", false
	}
	dir := dirOf(from)
	for _, rel := range list {
		if dirOf(rel) == dir {
			return rel, true
		}
	}
	return list[0], true
}

// dirOf is path.Dir for the clean relative paths the index holds (and
// ""), without path.Clean's scan.
func dirOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// byTail matches a partial path ("sub/Note") against the end of full
// paths ("area/sub/Note.md").
func (n *names) byTail(t, from string) (string, bool) {
	tail := "/" + key(t)
	var cands []string
	for _, base := range []string{path.Base(t) + ".md", path.Base(t)} {
		for _, rel := range n.base(key(base)) {
			k := "/" + key(rel)
			if strings.HasSuffix(k, tail) || strings.HasSuffix(k, tail+".md") {
				cands = append(cands, rel)
			}
		}
		if len(cands) > 0 {
			break
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	dir := path.Dir(from)
	for _, rel := range cands {
		if path.Dir(rel) == dir {
			return rel, true
		}
	}
	return cands[0], true
}
